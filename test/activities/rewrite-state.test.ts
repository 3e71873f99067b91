import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Importer } from '../../src/activities/ports';
import { makeRewriteState, type RewriteStateResult } from '../../src/activities/rewrite-state';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, pushTemplateVersion } from '../sim/helpers';

/**
 * rewriteState: the offline rename (or import) of a backed-up state, and the refusals that stop a
 * rewrite whose start would destroy an object: a module the target cannot rename, a DIFFERENT type
 * under the rename strategy, an import with no importer. Each refusal stores nothing.
 */

const K8S = 'provider["registry.terraform.io/hashicorp/kubernetes"]';
interface Res {
  mode?: 'managed' | 'data';
  type: string;
  name: string;
  module?: string;
  instances?: { index_key?: number | string; attributes?: Record<string, unknown>; dependencies?: string[] }[];
}
function stateText(resources: Res[], serial = 4): string {
  return `${JSON.stringify(
    {
      version: 4,
      terraform_version: '1.9.8',
      serial,
      lineage: 'rewrite-state-test',
      outputs: {},
      resources: resources.map((r) => ({
        mode: r.mode ?? 'managed',
        type: r.type,
        name: r.name,
        ...(r.module ? { module: r.module } : {}),
        provider: K8S,
        instances: (r.instances ?? [{}]).map((i) => ({ schema_version: 0, attributes: { id: `coder/${r.name}` }, ...i })),
      })),
    },
    null,
    2,
  )}\n`;
}
const PVC = { type: 'kubernetes_persistent_volume_claim', name: 'home' };
const DEPLOYMENT = { type: 'kubernetes_deployment', name: 'main', instances: [{ index_key: 0, dependencies: ['kubernetes_persistent_volume_claim.home'] }] };
const CRON = { type: 'kubernetes_cron_job', name: 'backup' };

/** A local module that declares the deprecated config map (unmigrated) or its _v1 twin (migrated). */
function withLocalModule(moduleType: string) {
  return [
    { name: 'main.tf', content: `${fixtureSource('template-v1')}\nmodule "extra" {\n  source = "./modules/extra"\n}\n` },
    { name: 'modules/extra/main.tf', content: `resource "${moduleType}" "settings" {\n  metadata {\n    name = "settings"\n  }\n}\n` },
  ];
}
const WITH_REGISTRY_MODULE = `${fixtureSource('template-v1')}\nmodule "extra" {\n  source  = "example/extra/kubernetes"\n  version = "1.0.0"\n}\n`;

describe('rewriteState: renames the backup offline, or refuses and stores nothing', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let coder: CoderClient;
  const versions: Record<string, string> = {};

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-rewrite-'));
    blobs = createFileBlobStore({ dir });
    coder = new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    const sources = {
      v1: fixtureSource('template-v1'),
      migratedModule: withLocalModule('kubernetes_config_map_v1'),
      oldModule: withLocalModule('kubernetes_config_map'),
      registryModule: WITH_REGISTRY_MODULE,
    };
    for (const [name, source] of Object.entries(sources)) versions[name] = (await pushTemplateVersion(sim, source)).id;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = (importer?: Importer) => stepsOf({ coder, blobs, notifier: { notify: async () => undefined }, ...(importer ? { importer } : {}) }, { rewriteState: makeRewriteState });
  async function backup(text: string): Promise<string> {
    return (await blobs.put(Buffer.from(text), { kind: 'state-backup', label: 'test', workspace: 'alice/dev' })).ref;
  }
  const storedCount = async () => (await blobs.list()).length;
  async function migratedText(ref: string): Promise<string> {
    return (await blobs.get(ref)).toString('utf8');
  }
  const input = (backupRef: string, over: Partial<{ strategy: 'rename' | 'import'; targetVersionId: string }> = {}) => ({
    subject: 'alice/dev',
    backupRef,
    strategy: 'rename' as const,
    targetVersionId: versions.v1,
    ...over,
  });

  it('renames the deprecated types and their dependencies, bumps the serial, and stores the result as the migrated state of the workspace', async () => {
    const ref = await backup(stateText([PVC, DEPLOYMENT], 4));
    const r = await acts().rewriteState(input(ref));
    expect(r.alreadyMigrated).toBe(false);
    expect(r.renamedCount).toBe(2);
    expect(r.renamed).toEqual([
      { from: 'kubernetes_persistent_volume_claim.home', to: 'kubernetes_persistent_volume_claim_v1.home' },
      { from: 'kubernetes_deployment.main[0]', to: 'kubernetes_deployment_v1.main[0]' },
    ]);
    expect(r.imported).toEqual([]);
    const written = JSON.parse(await migratedText(r.migrated.ref)) as { serial: number; resources: { type: string; instances: { dependencies?: string[] }[] }[] };
    expect(written.serial).toBe(5);
    expect(written.resources.map((x) => x.type)).toEqual(['kubernetes_persistent_volume_claim_v1', 'kubernetes_deployment_v1']);
    expect(written.resources[1].instances[0].dependencies).toEqual(['kubernetes_persistent_volume_claim_v1.home']);
    const record = (await blobs.list()).find((b) => b.ref === r.migrated.ref)?.records[0];
    expect(record).toMatchObject({ kind: 'state-migrated', label: 'alice/dev', workspace: 'alice/dev' });
    expect(record?.workflowId).toBeUndefined();
  });

  it('records the workflow run it serves on the migrated state, so retention knows whose it is', async () => {
    const ref = await backup(stateText([PVC], 11));
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'migrate-alice-dev', runId: 'run-1' } });
    const r = (await env.run(acts().rewriteState, input(ref))) as RewriteStateResult;
    const record = (await blobs.list()).find((b) => b.ref === r.migrated.ref)?.records[0];
    expect(record).toMatchObject({ kind: 'state-migrated', workspace: 'alice/dev', workflowId: 'migrate-alice-dev', runId: 'run-1' });
  });

  it('says so when the state is already migrated, and stores it unchanged', async () => {
    const text = stateText([{ type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }]);
    const r = await acts().rewriteState(input(await backup(text)));
    expect(r).toMatchObject({ alreadyMigrated: true, renamed: [], renamedCount: 0, imported: [] });
    expect(await migratedText(r.migrated.ref)).toBe(text);
  });

  it('reports at most 50 renames, with the full count beside them', async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ type: 'kubernetes_config_map', name: `cm${i}` }));
    const r = await acts().rewriteState(input(await backup(stateText(many))));
    expect(r.renamedCount).toBe(51);
    expect(r.renamed).toHaveLength(50);
    expect(r.renamed[49]).toMatchObject({ from: 'kubernetes_config_map.cm49' });
  });

  it('without a module in the state, does not read the target version at all (a root-only state needs no coverage check)', async () => {
    // An unknown version would fail the download: this proves the check is skipped, not that it passed.
    const dataInModule: Res = { mode: 'data', type: 'kubernetes_config_map', name: 'ro', module: 'module.extra' };
    const r = await acts().rewriteState(input(await backup(stateText([PVC, dataInModule])), { targetVersionId: '00000000-0000-4000-8000-0000000000aa' }));
    expect(r.renamed.map((c) => c.to)).toEqual(['kubernetes_persistent_volume_claim_v1.home', 'module.extra.data.kubernetes_config_map_v1.ro']);
  });

  it('renames a deprecated instance inside a local module the target version migrated', async () => {
    const inModule: Res = { type: 'kubernetes_config_map', name: 'settings', module: 'module.extra' };
    const r = await acts().rewriteState(input(await backup(stateText([PVC, inModule])), { targetVersionId: versions.migratedModule }));
    expect(r.renamed.map((c) => c.to)).toEqual(['kubernetes_persistent_volume_claim_v1.home', 'module.extra.kubernetes_config_map_v1.settings']);
  });

  describe('refusals: each names the workspace, what is wrong and what to do, and stores nothing', () => {
    async function refused(text: string, over: Parameters<typeof input>[1] = {}, importer?: Importer) {
      const ref = await backup(text);
      const before = await storedCount();
      const err = await acts(importer).rewriteState(input(ref, over)).then(
        () => undefined,
        (e: unknown) => e as { type: string; nonRetryable: boolean; message: string },
      );
      expect(err).toBeDefined();
      expect(await storedCount()).toBe(before);
      return err!;
    }

    it('a deprecated instance in a local module the target version still declares with the old type', async () => {
      const inModule: Res = { type: 'kubernetes_config_map', name: 'settings', module: 'module.extra' };
      const err = await refused(stateText([PVC, inModule]), { targetVersionId: versions.oldModule });
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(
        'rewrite state refused for alice/dev: 1 deprecated instance(s) live in a module the target version cannot rename: ' +
          'module.extra.kubernetes_config_map.settings (the target version\'s module folder "modules/extra" still declares kubernetes_config_map.settings). ' +
          'Nothing was pushed. Migrate that module to the _v1 types or vendor it into the template (source = "./modules/NAME"), push that version, then migrate the workspace to it',
      );
    });

    it('instances in a registry module, listing ten and saying there are more', async () => {
      const inModule: Res = { type: 'kubernetes_config_map', name: 'cm', module: 'module.extra', instances: Array.from({ length: 11 }, (_, i) => ({ index_key: i })) };
      const err = await refused(stateText([inModule]), { targetVersionId: versions.registryModule });
      expect(err.type).toBe(FailureType.refused);
      expect(err.message).toMatch(/^rewrite state refused for alice\/dev: 11 deprecated instance\(s\) live in a module the target version cannot rename: module\.extra\.kubernetes_config_map\.cm\[0\] \(module\.extra is called at main\.tf:\d+ from a source outside the template/);
      expect(err.message).toMatch(/outside the template, so its code \(and the type it declares\) cannot be checked or renamed\); module\.extra\.kubernetes_config_map\.cm\[1\] \(/);
      expect(err.message).toContain('module.extra.kubernetes_config_map.cm[9] (');
      expect(err.message).not.toContain('cm[10]');
      expect(err.message).toMatch(/; …\. Nothing was pushed\./);
    });

    it('exactly ten uncovered instances are all listed, with no "…"', async () => {
      const inModule: Res = { type: 'kubernetes_config_map', name: 'cm', module: 'module.extra', instances: Array.from({ length: 10 }, (_, i) => ({ index_key: i })) };
      const err = await refused(stateText([inModule]), { targetVersionId: versions.registryModule });
      expect(err.message).toContain('cm[9] (');
      expect(err.message).not.toContain('…');
    });

    it('a DIFFERENT type under the rename strategy (a rename would corrupt it)', async () => {
      const err = await refused(stateText([PVC, CRON]));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(/^rewrite state refused for alice\/dev: Cannot rename the state: |^rewrite state refused for alice\/dev: Cannot rename the state \(1 problem\)/);
      expect(err.message).toContain('kubernetes_cron_job.backup');
      expect(err.message).toContain('needs strategy import');
    });

    it('a backup that is not a state, with the rename\'s reason rather than a crash', async () => {
      const err = await refused('{"version": 3, "resources": []}\n');
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(/^rewrite state refused for alice\/dev: Cannot rename the state: .*version/);
      const notJson = await refused('{ this is not json');
      expect(notJson).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(notJson.message).toMatch(/^rewrite state refused for alice\/dev: /);
    });

    it('the import strategy with DIFFERENT types but no importer on this worker, naming each instance and what the worker needs', async () => {
      const err = await refused(stateText([PVC, CRON, { ...CRON, name: 'nightly' }]), { strategy: 'import' });
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(
        'rewrite state refused for alice/dev: kubernetes_cron_job.backup, kubernetes_cron_job.nightly need terraform import, but this worker has no importer configured (it needs Terraform, the provider and cluster credentials)',
      );
    });
    it('the import strategy with a DIFFERENT instance that has no attributes.id: refused (its import ID is unknown), never retried', async () => {
      const { importer, calls } = { calls: [] as unknown[], importer: { importInstances: async (i: unknown) => { calls.push(i); return ''; } } as Importer };
      const err = await refused(stateText([PVC, { ...CRON, instances: [{ attributes: {} }] }]), { strategy: 'import' }, importer);
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(/^rewrite state refused for alice\/dev: Cannot plan imports: kubernetes_cron_job\.backup has no attributes\.id in the state, so the import ID is unknown\. Look the object up in the cluster/);
      expect(calls).toEqual([]);
    });
  });

  describe('the import strategy', () => {
    function recordingImporter(result: (stateText: string) => string) {
      const calls: Parameters<Importer['importInstances']>[0][] = [];
      const importer: Importer = {
        importInstances: async (i) => {
          calls.push(i);
          return result(i.stateText);
        },
      };
      return { importer, calls };
    }

    it('renames the SAME types, imports the DIFFERENT ones with the target version\'s files, and stores what the importer returned', async () => {
      const imported = stateText([{ type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }, { type: 'kubernetes_cron_job_v1', name: 'backup' }], 9);
      const { importer, calls } = recordingImporter(() => imported);
      const r = await acts(importer).rewriteState(input(await backup(stateText([PVC, CRON])), { strategy: 'import' }));
      expect(calls).toHaveLength(1);
      // The importer gets the state the rename made: the PVC renamed, the cron job left for it.
      expect(JSON.parse(calls[0].stateText).resources.map((x: { type: string }) => x.type)).toEqual(['kubernetes_persistent_volume_claim_v1', 'kubernetes_cron_job']);
      expect(calls[0].steps.map((s) => [s.oldAddress, s.newAddress, s.importId])).toEqual([['kubernetes_cron_job.backup', 'kubernetes_cron_job_v1.backup', 'coder/backup']]);
      expect(calls[0].templateFiles.map((f) => f.path)).toEqual(['main.tf']);
      expect(calls[0].templateFiles[0].content).toBe(fixtureSource('template-v1'));
      expect(r.imported).toEqual(['kubernetes_cron_job.backup -> kubernetes_cron_job_v1.backup']);
      expect(r.renamed.map((c) => c.from)).toEqual(['kubernetes_persistent_volume_claim.home']);
      expect(r.alreadyMigrated).toBe(false);
      expect(await migratedText(r.migrated.ref)).toBe(imported);
    });

    it('a state whose SAME types are migrated but a DIFFERENT one is not is not "already migrated" once imported', async () => {
      const { importer } = recordingImporter((t) => t.replace('"kubernetes_cron_job"', '"kubernetes_cron_job_v1"'));
      const r = await acts(importer).rewriteState(input(await backup(stateText([{ type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }, CRON])), { strategy: 'import' }));
      expect(r.renamedCount).toBe(0);
      expect(r.imported).toHaveLength(1);
      expect(r.alreadyMigrated).toBe(false);
    });

    it('needs no importer on the worker when nothing needs importing', async () => {
      const r = await acts().rewriteState(input(await backup(stateText([PVC], 21)), { strategy: 'import' }));
      expect(r).toMatchObject({ imported: [], renamedCount: 1 });
    });

    it('calls no importer when nothing needs importing', async () => {
      const { importer, calls } = recordingImporter(() => 'never');
      const r = await acts(importer).rewriteState(input(await backup(stateText([PVC])), { strategy: 'import' }));
      expect(calls).toEqual([]);
      expect(r.imported).toEqual([]);
      expect(JSON.parse(await migratedText(r.migrated.ref)).resources[0].type).toBe('kubernetes_persistent_volume_claim_v1');
    });
  });

  it('a backup the store no longer has fails as unavailable, naming the step and the workspace', async () => {
    const ref = await backup(stateText([PVC], 77));
    const gone = (await blobs.list()).find((b) => b.ref === ref)!;
    await blobs.remove(gone.sha256);
    await expect(acts().rewriteState(input(ref))).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringMatching(/^rewrite state failed for alice\/dev: /),
    });
  });
});
