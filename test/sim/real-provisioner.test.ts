import { startLocalKubeApi, type LocalKubeApi } from '../../src/adapters/kube';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';
import { startSimulator, type CoderSimulator, type KubeObject } from '../../src/sim';
import { describeRealStack, REAL_BUILD_TIMEOUT_MS } from '../harness/real-stack';
import { api, claimForgottenAndGenerated, fixtureSource, homePvcName, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, waitForBuild, withGeneratedConfigMap, type BuildJson } from './helpers';

jest.setTimeout(600_000);

/**
 * The same scenarios through both provisioners: the structural planner (the simulator's model of
 * Terraform) and real Terraform with the real providers against a real kube-apiserver. Each build's
 * effect is reduced to what a user would notice (objects created, destroyed, state entries
 * forgotten with their object left behind) and the two must agree, except where real Terraform is
 * known to differ (the concurrent destroy + create of a type change, see the Option A test).
 */
describeRealStack('the real provisioner (real Terraform + providers + kube-apiserver)', () => {
  let kube: LocalKubeApi;
  let seed = 1000;

  beforeAll(async () => {
    kube = await startLocalKubeApi();
  });
  afterAll(async () => kube?.stop());

  /** One simulator per scenario; real ones share the API server, with distinct seeds so names never clash. */
  async function simOf(kind: 'structural' | 'terraform'): Promise<CoderSimulator> {
    seed += 1;
    return startSimulator({
      workspaces: 1,
      buildLatencyMs: 5,
      seed,
      ...(kind === 'terraform' ? { provisioner: 'terraform' as const, kubeconfig: kube.kubeconfigPath } : {}),
    });
  }

  interface Effect {
    build: string;
    status: string;
    created: string[];
    destroyed: string[];
    forgotten: string[];
  }

  const workspaceOf = (sim: CoderSimulator) => sim.workspaces()[0] ?? (() => { throw new Error('no workspace'); })();
  const objectsOf = (sim: CoderSimulator, wsId: string): KubeObject[] => sim.cluster.objects().filter((o) => o.name.includes(wsId));
  const stateEntries = (text: string) => {
    if (!text) return [] as { address: string; uid?: string }[];
    const doc = JSON.parse(text) as { resources: { mode: string; type: string; name: string; instances: { index_key?: number; attributes: { metadata?: { uid?: string }[] } }[] }[] };
    return doc.resources
      .filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_'))
      .flatMap((r) => r.instances.map((i) => ({ address: `${r.type}.${r.name}${i.index_key === undefined ? '' : `[${i.index_key}]`}`, uid: i.attributes.metadata?.[0]?.uid })));
  };

  /** Runs one build and reports its effect in provisioner-independent terms. */
  async function build(sim: CoderSimulator, label: string, body: Record<string, unknown>): Promise<{ effect: Effect; build: BuildJson }> {
    const ws = workspaceOf(sim);
    const objectsBefore = objectsOf(sim, ws.id);
    const stateBefore = stateEntries(sim.stateOf(ws.id));
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: body });
    if (res.status !== 201) throw new Error(`POST build answered ${res.status}: ${res.text}`);
    let done: BuildJson;
    try {
      done = (await waitForBuild(sim, res.body.id, REAL_BUILD_TIMEOUT_MS)).build;
    } catch (e) {
      throw new Error(`${label}: ${(e as Error).message}\n${await logTail(sim, res.body.id)}`);
    }
    if (done.job.status === 'failed') failedLogs.push(`${sim.provisioner.kind} ${label}: ${done.job.error ?? ''}\n${await logTail(sim, done.id)}`);
    const objectsAfter = objectsOf(sim, ws.id);
    const stateAfter = stateEntries(sim.stateOf(ws.id));
    const uidsAfter = new Set(objectsAfter.map((o) => o.uid));
    const uidsBefore = new Set(objectsBefore.map((o) => o.uid));
    const effect: Effect = {
      build: label,
      status: done.job.status,
      created: objectsAfter.filter((o) => !uidsBefore.has(o.uid)).map((o) => o.kind).sort(),
      destroyed: objectsBefore.filter((o) => !uidsAfter.has(o.uid)).map((o) => o.kind).sort(),
      forgotten: stateBefore
        .filter((e) => e.uid && uidsAfter.has(e.uid) && !stateAfter.some((a) => a.uid === e.uid))
        .map((e) => e.address)
        .sort(),
    };
    return { effect, build: done };
  }

  const failedLogs: string[] = [];
  async function logTail(sim: CoderSimulator, buildId: string): Promise<string> {
    const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${buildId}/logs`);
    return Array.isArray(logs.body) ? logs.body.map((l) => l.output).slice(-25).join('\n') : '';
  }

  async function handMigrate(sim: CoderSimulator): Promise<string> {
    const ws = workspaceOf(sim);
    const buildId = await latestBuildId(sim, ws.id);
    const pulled = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    expect((await putState(sim, buildId, migrateStateByHand(pulled.text))).status).toBe(204);
    return (await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true })).id;
  }

  /** The scenarios: each returns the effects of its builds, in order. */
  const scenarios: Record<string, (sim: CoderSimulator) => Promise<Effect[]>> = {
    'stopped first, migrated by hand, start pinned to the _v1 version (the safe runbook)': async (sim) => {
      const stop = await build(sim, 'stop', { transition: 'stop' });
      const v1 = await handMigrate(sim);
      const start = await build(sim, 'start pinned to _v1', { transition: 'start', template_version_id: v1 });
      return [stop.effect, start.effect];
    },
    'running, migrated by hand, start pinned to the _v1 version (Option B)': async (sim) => {
      const v1 = await handMigrate(sim);
      return [(await build(sim, 'start pinned to _v1', { transition: 'start', template_version_id: v1 })).effect];
    },
    'stopped first, the migrated state carried inside the start pinned to _v1 (one build, no window)': async (sim) => {
      const stop = await build(sim, 'stop', { transition: 'stop' });
      const migrated = migrateStateByHand(sim.stateOf(workspaceOf(sim).id));
      const v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true })).id;
      const start = await build(sim, 'start pinned to _v1 with the migrated state', { transition: 'start', template_version_id: v1, state: Buffer.from(migrated).toString('base64') });
      return [stop.effect, start.effect];
    },
    'running, the migrated state carried inside the start pinned to _v1 (Option B, one build)': async (sim) => {
      const migrated = migrateStateByHand(sim.stateOf(workspaceOf(sim).id));
      const v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true })).id;
      return [(await build(sim, 'start pinned to _v1 with the migrated state', { transition: 'start', template_version_id: v1, state: Buffer.from(migrated).toString('base64') })).effect];
    },
    'the guard version (removed{destroy=false}) on an unmigrated workspace': async (sim) => {
      const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
      return [(await build(sim, 'start pinned to the guard version', { transition: 'start', template_version_id: guard.id })).effect];
    },
    'the zero-touch version (template rewrite --zero-touch): stop first, then start, then start again': async (sim) => {
      const zt = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }], { zeroTouch: true }).files;
      const version = await pushTemplateVersion(sim, zt.map((f) => ({ name: f.path, content: f.content })), { promote: true });
      return [
        (await build(sim, 'stop on the zero-touch version', { transition: 'stop', template_version_id: version.id })).effect,
        (await build(sim, 'start', { transition: 'start', template_version_id: version.id })).effect,
        (await build(sim, 'start again', { transition: 'start', template_version_id: version.id })).effect,
      ];
    },
    'a config map named by generate_name: created, kept over a stop and a start, replaced when its prefix changes': async (sim) => {
      const named = await pushTemplateVersion(sim, withGeneratedConfigMap('coder-${data.coder_workspace.me.id}-init-'));
      const renamed = await pushTemplateVersion(sim, withGeneratedConfigMap('coder-${data.coder_workspace.me.id}-boot-'));
      return [
        (await build(sim, 'start on the generate_name version', { transition: 'start', template_version_id: named.id })).effect,
        (await build(sim, 'stop', { transition: 'stop', template_version_id: named.id })).effect,
        (await build(sim, 'start again', { transition: 'start', template_version_id: named.id })).effect,
        (await build(sim, 'start with another prefix', { transition: 'start', template_version_id: renamed.id })).effect,
      ];
    },
    'a claim forgotten by removed{} and declared again by generate_name: a second claim beside the first': async (sim) => {
      const version = await pushTemplateVersion(sim, claimForgottenAndGenerated());
      return [(await build(sim, 'start on the regenerating version', { transition: 'start', template_version_id: version.id })).effect];
    },
    // removed{destroy=false} speaks of forgetting an address in a plan; a destroy plan destroys what the state
    // holds whatever the config says (measured on Terraform 1.11): a workspace delete still deletes its claim.
    'a workspace delete on the guard version before its state is migrated: the old claim goes with it': async (sim) => {
      const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
      const deleted = await build(sim, 'delete', { transition: 'delete', template_version_id: guard.id });
      expect(deleted.effect).toMatchObject({ status: 'succeeded', destroyed: expect.arrayContaining(['PersistentVolumeClaim']) });
      return [deleted.effect];
    },
    'stop, start and delete on the original version': async (sim) => [
      (await build(sim, 'stop', { transition: 'stop' })).effect,
      (await build(sim, 'start', { transition: 'start' })).effect,
      (await build(sim, 'delete', { transition: 'delete' })).effect,
    ],
  };

  for (const [name, scenario] of Object.entries(scenarios)) {
    it(`agrees with the structural planner: ${name}`, async () => {
      const results: Record<string, Effect[]> = {};
      failedLogs.length = 0;
      for (const kind of ['structural', 'terraform'] as const) {
        const sim = await simOf(kind);
        try {
          results[kind] = await scenario(sim);
        } finally {
          await sim.close();
        }
      }
      if (JSON.stringify(results.terraform) !== JSON.stringify(results.structural)) {
        // Show why a real build did what it did, not only that it differs.
        console.error(`the provisioners disagree on "${name}"; failed builds:\n${failedLogs.join('\n---\n')}`);
      }
      expect(results.terraform).toEqual(results.structural);
      // None of these builds may lose a home volume outside a workspace delete.
      for (const e of results.terraform ?? []) if (e.build !== 'delete') expect(e.destroyed).not.toContain('PersistentVolumeClaim');
    });
  }

  it('the seeded workspace is really in the API server: PVC and Deployment with the uids the state holds', async () => {
    const sim = await simOf('terraform');
    try {
      const ws = workspaceOf(sim);
      const pvc = await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws.id));
      const deployment = await kube.client.get('Deployment', 'coder', `coder-${ws.id}`);
      expect(pvc?.uid).toBeDefined();
      expect(deployment?.uid).toBeDefined();
      const entries = stateEntries(sim.stateOf(ws.id));
      expect(entries).toEqual(
        expect.arrayContaining([
          { address: 'kubernetes_persistent_volume_claim.home', uid: pvc?.uid },
          { address: 'kubernetes_deployment.main[0]', uid: deployment?.uid },
        ]),
      );
      const state = JSON.parse(sim.stateOf(ws.id)) as { terraform_version: string };
      expect(state.terraform_version).not.toBe('');
      // The build log is Terraform's own output.
      const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, ws.id)}/logs`);
      expect(logs.body.map((l) => l.output).join('\n')).toMatch(/Apply complete! Resources: \d+ added/);
    } finally {
      await sim.close();
    }
  });

  it("a build's parameter values reach the coder provider (CODER_PARAMETER_<sha256>): given once, carried by the next builds, on both provisioners", async () => {
    const withSizeMap = K8S_TEMPLATE_MAIN_TF.replace(
      'resource "kubernetes_deployment" "main" {',
      `data "coder_parameter" "size" {
  name    = "workspace size"
  default = "small"
  mutable = true
}
resource "kubernetes_config_map" "size" {
  metadata {
    name      = "coder-\${data.coder_workspace.me.id}-size"
    namespace = var.namespace
  }
  data = {
    size = data.coder_parameter.size.value
  }
}
resource "kubernetes_deployment" "main" {`,
    );
    const sizeInState = (sim: CoderSimulator): unknown => {
      const doc = JSON.parse(sim.stateOf(workspaceOf(sim).id)) as { resources: { type: string; instances: { attributes: { data?: Record<string, string> } }[] }[] };
      return doc.resources.find((r) => r.type === 'kubernetes_config_map')?.instances[0]?.attributes.data?.size;
    };
    const seen: Record<string, unknown[]> = {};
    for (const kind of ['structural', 'terraform'] as const) {
      const sim = await simOf(kind);
      try {
        const version = await pushTemplateVersion(sim, withSizeMap);
        const given = await build(sim, 'start with size large', { transition: 'start', template_version_id: version.id, rich_parameter_values: [{ name: 'workspace size', value: 'large' }] });
        expect(given.build.job.status).toBe('succeeded');
        const first = sizeInState(sim);
        await build(sim, 'stop', { transition: 'stop' });
        const carried = await build(sim, 'start with no values', { transition: 'start' });
        expect(carried.build.job.status).toBe('succeeded');
        seen[kind] = [first, sizeInState(sim)];
        if (kind === 'terraform') {
          const map = await kube.client.get('ConfigMap', 'coder', `coder-${workspaceOf(sim).id}-size`);
          expect(map).toBeDefined();
        }
      } finally {
        await sim.close();
      }
    }
    expect(seen).toEqual({ structural: ['large', 'large'], terraform: ['large', 'large'] });
  });

  // One simulator per provisioner for both facts: a real one inits Terraform and applies the seeded workspace first.
  it("what Coder's provisioner gives Terraform reaches it on both provisioners: the version's template variable values (-var name=value, a required variable given at the push) and the owner's names (CODER_WORKSPACE_OWNER = username, CODER_WORKSPACE_OWNER_NAME = full name, \"default\" when empty)", async () => {
    // Public templates declare the namespace without a default (coder/coder examples/templates/kubernetes): seeded with --var, as pushed with it.
    const required = K8S_TEMPLATE_MAIN_TF.replace('  default     = "coder"\n', '');
    expect(required).not.toBe(K8S_TEMPLATE_MAIN_TF);
    const withOwnerMap = required.replace(
      'resource "kubernetes_deployment" "main" {',
      `resource "kubernetes_config_map" "owner" {
  metadata {
    name      = "coder-\${data.coder_workspace.me.id}-owner"
    namespace = var.namespace
  }
  data = {
    name      = data.coder_workspace_owner.me.name
    full_name = data.coder_workspace_owner.me.full_name
  }
}
resource "kubernetes_deployment" "main" {`,
    );
    const ownerIn = (sim: CoderSimulator, wsId: string): unknown => {
      const doc = JSON.parse(sim.stateOf(wsId)) as { resources: { type: string; instances: { attributes: { data?: Record<string, string> } }[] }[] };
      return doc.resources.find((r) => r.type === 'kubernetes_config_map')?.instances[0]?.attributes.data;
    };
    const seen: Record<string, unknown[]> = {};
    for (const kind of ['structural', 'terraform'] as const) {
      seed += 1;
      const sim = await startSimulator({
        workspaces: 1,
        buildLatencyMs: 5,
        seed,
        templateFiles: [{ name: 'main.tf', content: withOwnerMap }],
        templateVariables: [{ name: 'namespace', value: 'coder' }],
        ...(kind === 'terraform' ? { provisioner: 'terraform' as const, kubeconfig: kube.kubeconfigPath } : {}),
      });
      try {
        const seeded = workspaceOf(sim);
        expect(stateEntries(sim.stateOf(seeded.id)).map((e) => e.address).sort()).toEqual(['kubernetes_config_map.owner', 'kubernetes_deployment.main[0]', 'kubernetes_persistent_volume_claim.home']);
        if (kind === 'terraform') expect(await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(seeded.id))).toBeDefined();
        // A user made without a full name, as POST /users without `name`: Coder stores "".
        const token = sim.tokenFor('member', `nofull${seed}`);
        const res = await api<{ id: string; latest_build: { id: string } }>(sim, 'POST', '/users/me/workspaces', { json: { name: 'unnamed-owner', template_id: sim.template.id }, token });
        expect(res.status).toBe(201);
        expect((await waitForBuild(sim, res.body.latest_build.id, REAL_BUILD_TIMEOUT_MS)).build.job.status).toBe('succeeded');
        seen[kind] = [ownerIn(sim, workspaceOf(sim).id), ownerIn(sim, res.body.id)];
      } finally {
        await sim.close();
      }
    }
    const expected = [{ name: 'alice', full_name: 'Alice Liddell' }, { name: expect.stringMatching(/^nofull\d+$/) as unknown, full_name: 'default' }];
    expect(seen).toEqual({ structural: expected, terraform: expected });
  });

  it("a name Kubernetes refuses (a config map named after the owner's full name, \"Alice Liddell\") fails the build at the provider's validation on both provisioners: nothing created or destroyed, the state as it was", async () => {
    const named = K8S_TEMPLATE_MAIN_TF.replace(
      'resource "kubernetes_deployment" "main" {',
      `resource "kubernetes_config_map" "owner" {
  metadata {
    name      = data.coder_workspace_owner.me.full_name
    namespace = var.namespace
  }
}
resource "kubernetes_deployment" "main" {`,
    );
    expect(named).not.toBe(K8S_TEMPLATE_MAIN_TF);
    const seen: Record<string, { effect: Effect; error: string; stateKept: boolean }> = {};
    failedLogs.length = 0;
    for (const kind of ['structural', 'terraform'] as const) {
      const sim = await simOf(kind);
      try {
        const ws = workspaceOf(sim);
        const stateBefore = sim.stateOf(ws.id);
        const version = await pushTemplateVersion(sim, named, { name: 'owner-named-map' });
        expect(version.job.status).toBe('succeeded');
        const { effect, build: done } = await build(sim, 'start', { transition: 'start', template_version_id: version.id });
        seen[kind] = { effect, error: done.job.error ?? '', stateKept: sim.stateOf(ws.id) === stateBefore };
      } finally {
        await sim.close();
      }
    }
    const expected = { build: 'start', status: 'failed', created: [], destroyed: [], forgotten: [] };
    expect(seen.structural?.effect).toEqual(expected);
    expect(seen.terraform?.effect).toEqual(expected);
    for (const kind of ['structural', 'terraform']) {
      expect(seen[kind]?.error).toMatch(/a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/);
      expect(seen[kind]?.stateKept).toBe(true);
    }
  });

  it('Option A done with a plain start (KB hazard 1): the OLD version runs on the migrated state and the PVC is lost', async () => {
    const sim = await simOf('terraform');
    try {
      const ws = workspaceOf(sim);
      await build(sim, 'stop', { transition: 'stop' });
      const before = await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws.id));
      expect(before).toBeDefined();
      await handMigrate(sim);
      const { effect, build: start } = await build(sim, 'plain start', { transition: 'start' });
      expect(start.template_version_id).toBe(sim.template.originalVersionId);
      // Real Terraform destroys the _v1 PVC (no config) and creates the old-type one concurrently:
      // the create may hit AlreadyExists (build failed) or win after the delete (build succeeded).
      // Either way the home volume with the old uid is gone.
      expect(effect.destroyed).toContain('PersistentVolumeClaim');
      const after = await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws.id));
      expect(after?.uid).not.toBe(before?.uid);
      expect(sim.cluster.pvcLosses()).toEqual([expect.objectContaining({ workspace: ws.id, oldUid: before?.uid, buildId: start.id })]);
    } finally {
      await sim.close();
    }
  });

  it('the guard (KB hazard 5): the failed Update keeps the PVC, and the partial state Terraform saved is the build\'s state', async () => {
    const sim = await simOf('terraform');
    try {
      const ws = workspaceOf(sim);
      const before = await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws.id));
      const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
      const { build: start } = await build(sim, 'start pinned to the guard version', { transition: 'start', template_version_id: guard.id });
      expect(start.job.status).toBe('failed');
      expect(start.job.error).toMatch(/already exists/);
      expect((await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws.id)))?.uid).toBe(before?.uid);
      expect(sim.cluster.pvcLosses()).toEqual([]);
      const types = stateEntries(sim.stateOf(ws.id)).map((e) => e.address);
      expect(types.some((a) => a.startsWith('kubernetes_persistent_volume_claim'))).toBe(false);
    } finally {
      await sim.close();
    }
  });
});
