import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { defaultWorkflowsPath } from '../../src/worker/create-worker';
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

describe('the workflow bundle', () => {
  // Every module a workflow imports (beyond the SDK's own) is evaluated again for each workflow the
  // worker starts. zod alone was a megabyte of it: CPU for every workspace, and once V8 found it hot,
  // a 7-second, 400 MB optimizing compile that doubled the worker's memory.
  it('holds no heavy library: no zod, no state or plan parser', async () => {
    const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
    const { code } = await bundleWorkflowCode({ workflowsPath: defaultWorkflowsPath(), logger: silent });
    const modules = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1]);
    expect(modules.some((m) => m.includes('/workflows/migrate-workspace'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/zod\//.test(m))).toEqual([]);
    expect(modules.filter((m) => /domain\/(state|plan)\//.test(m))).toEqual([]);
  }, 120_000);
});
