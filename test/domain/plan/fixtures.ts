import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PLAN_FIXTURES = join(__dirname, '..', '..', 'fixtures', 'plan');

export function fixturePath(relative: string): string {
  return join(PLAN_FIXTURES, relative);
}

export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8');
}
