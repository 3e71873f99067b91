import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Node 20 left support in April 2026: what ships, and what CI proves it on, is the current LTS (#22 item 16). */
describe('the runtime wsmigrate ships on', () => {
  it('the image builds and runs on Node 24, and package.json asks for it', () => {
    const froms = read('Dockerfile').split('\n').filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^FROM node:24-bookworm-slim\b/);
    expect((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node).toBe('>=24');
  });

  it('the bootstrap fetches Node 24, and CI, make test and make demo put it first on PATH', () => {
    expect(read('scripts/bootstrap-tools.sh')).toMatch(/^NODE_VERSION=24\.\d+\.\d+$/m);
    expect(read('.ci/run')).toMatch(/PATH="\$\(bash scripts\/bootstrap-tools\.sh --node-bin-dir\):\$PATH"/);
    expect(read('Makefile')).toMatch(/^NODE_BIN := \$\(shell bash scripts\/bootstrap-tools\.sh --node-bin-dir\)\nexport PATH := \$\(NODE_BIN\):\$\(PATH\)$/m);
  });

  it('this suite runs on Node 24 (the bootstrap put it first)', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
