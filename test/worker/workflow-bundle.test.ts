import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prebuiltWorkflowBundle, WORKFLOW_BUNDLE_FILE } from '../../src/worker/workflow-bundle';

describe('the prebuilt workflow bundle a worker loads instead of bundling at start', () => {
  let root: string;
  const touch = (path: string, secondsAgo: number) => {
    writeFileSync(path, '// code');
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path, t, t);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wsm-bundle-'));
    mkdirSync(join(root, 'workflows'));
    mkdirSync(join(root, 'domain', 'state'), { recursive: true });
    touch(join(root, 'workflows', 'index.js'), 60);
    touch(join(root, 'domain', 'state', 'rename.js'), 60);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is used when it is newer than every workflow and domain file it was made from', () => {
    touch(join(root, WORKFLOW_BUNDLE_FILE), 10);
    expect(prebuiltWorkflowBundle(root)).toBe(join(root, WORKFLOW_BUNDLE_FILE));
  });

  it('is ignored when missing, or when the code was rebuilt after it (a stale bundle would run old workflow code)', () => {
    expect(prebuiltWorkflowBundle(root)).toBeUndefined();
    touch(join(root, WORKFLOW_BUNDLE_FILE), 30);
    touch(join(root, 'domain', 'state', 'rename.js'), 5);
    expect(prebuiltWorkflowBundle(root)).toBeUndefined();
  });
});
