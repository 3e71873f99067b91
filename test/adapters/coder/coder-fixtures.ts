import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(__dirname, '..', '..', 'fixtures', 'coder');

export type FixtureName =
  | 'buildinfo'
  | 'workspace'
  | 'workspaces'
  | 'workspace-build'
  | 'build-logs'
  | 'template'
  | 'template-version'
  | 'file-upload'
  | 'error';

/** A fresh copy of a response fixture from test/fixtures/coder, safe to modify. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function fixture(name: FixtureName): any {
  return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'));
}
