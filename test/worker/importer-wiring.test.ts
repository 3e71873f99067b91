import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/env';
import { activityDepsFromConfig } from '../../src/worker/activity-deps';

describe('the worker wires the Terraform importer only when WSMIGRATE_KUBECONFIG is set', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-kubeconfig-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const base = { CODER_URL: 'http://127.0.0.1:1', CODER_SESSION_TOKEN: 'abc', WSMIGRATE_BLOB_DIR: join(dir, 'blobs') };

  it('without it the import strategy has no importer (and is refused by the rewrite step)', () => {
    expect(activityDepsFromConfig(loadConfig(base, dir)).importer).toBeUndefined();
  });

  it('with it, a relative path is resolved against the working directory and an importer is built', () => {
    writeFileSync(join(dir, 'kubeconfig'), '{}');
    const cfg = loadConfig({ ...base, WSMIGRATE_KUBECONFIG: 'kubeconfig' }, dir);
    expect(cfg.kubeconfig).toBe(join(dir, 'kubeconfig'));
    expect(typeof activityDepsFromConfig(cfg).importer?.importInstances).toBe('function');
  });

  it('a kubeconfig that does not exist is an error naming the variable', () => {
    const cfg = loadConfig({ ...base, WSMIGRATE_KUBECONFIG: '/nowhere/kubeconfig' }, dir);
    expect(() => activityDepsFromConfig(cfg)).toThrow(/WSMIGRATE_KUBECONFIG points at \/nowhere\/kubeconfig, which does not exist/);
  });
});
