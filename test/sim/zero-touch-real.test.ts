import { startLocalKubeApi, type LocalKubeApi } from '../../src/adapters/kube';
import { DEFAULT_ZERO_TOUCH_FILE_NAME } from '../../src/domain/hcl/zero-touch-blocks';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { describeRealStack, REAL_BUILD_TIMEOUT_MS } from '../harness/real-stack';
import { api, homePvcName, pushTemplateVersion, waitForBuild, type BuildJson } from './helpers';

jest.setTimeout(900_000);

/**
 * The zero-touch template version that `wsmigrate template rewrite --zero-touch` generates from the
 * seeded (unmigrated) template, on the real stack: the scenarios of reference/real-kubernetes.md
 * "Zero-touch", with uids read from the API server.
 */
const generated = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }], { zeroTouch: true }).files;
describeRealStack('a zero-touch template version with real Terraform', () => {
  let kube: LocalKubeApi;
  let sim: CoderSimulator;
  let zeroTouch: string;

  beforeAll(async () => {
    kube = await startLocalKubeApi();
    sim = await startSimulator({ workspaces: 5, buildLatencyMs: 5, seed: 777, provisioner: 'terraform', kubeconfig: kube.kubeconfigPath });
    expect(generated.map((f) => f.path).sort()).toEqual(['main.tf', DEFAULT_ZERO_TOUCH_FILE_NAME]);
    const version = await pushTemplateVersion(sim, generated.map((f) => ({ name: f.path, content: f.content })), { promote: true });
    expect(version.job.status).toBe('succeeded');
    zeroTouch = version.id;
    seeded = sim.workspaces();
  });
  afterAll(async () => {
    await sim?.close();
    await kube?.stop();
  });

  // Kept from the start: a deleted workspace leaves sim.workspaces().
  let seeded: ReturnType<CoderSimulator['workspaces']> = [];
  const ws = (i: number) => seeded[i] ?? (() => { throw new Error(`no workspace ${i}`); })();
  const uids = async (i: number) => ({
    pvc: (await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(ws(i).id)))?.uid,
    deployment: (await kube.client.get('Deployment', 'coder', `coder-${ws(i).id}`))?.uid,
  });
  const types = (i: number) =>
    (JSON.parse(sim.stateOf(ws(i).id)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_')).map((r) => r.type).sort();
  async function build(i: number, body: Record<string, unknown>): Promise<{ build: BuildJson; log: string }> {
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws(i).id}/builds`, { json: body });
    if (res.status !== 201) throw new Error(`POST build answered ${res.status}: ${res.text}`);
    const done = (await waitForBuild(sim, res.body.id, REAL_BUILD_TIMEOUT_MS)).build;
    const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${done.id}/logs`);
    return { build: done, log: logs.body.map((l) => l.output).join('\n') };
  }

  it('running, unmigrated: the next start imports both objects (same uids, nothing destroyed); the one after is a no-op; a downgrade then loses the PVC', async () => {
    const before = await uids(0);
    const first = await build(0, { transition: 'start', template_version_id: zeroTouch });
    expect(first.build.job.status).toBe('succeeded');
    expect(first.log).toMatch(/2 imported|Resources: 2 imported/);
    expect(first.log).toMatch(/0 destroyed/);
    expect(await uids(0)).toEqual(before);
    expect(types(0)).toEqual(['kubernetes_deployment_v1', 'kubernetes_persistent_volume_claim_v1']);

    const again = await build(0, { transition: 'start', template_version_id: zeroTouch });
    expect(again.build.job.status).toBe('succeeded');
    // Nothing left to migrate: no import, no forget, nothing added or destroyed. (The Deployment is
    // updated in place: the coder provider gives the agent a new token on every start.)
    expect(again.log).toMatch(/Apply complete! Resources: 0 added, \d+ changed, 0 destroyed\./);
    expect(again.log).not.toMatch(/import|Removing from state|will no longer be managed/i);
    expect(await uids(0)).toEqual(before);
    expect(sim.cluster.pvcLosses()).toEqual([]);

    // The one thing zero-touch cannot prevent: a build of the OLD version on a migrated workspace.
    await build(0, { transition: 'start', template_version_id: sim.template.originalVersionId });
    expect((await uids(0)).pvc).not.toBe(before.pvc);
    expect(sim.cluster.pvcLosses().map((l) => l.oldUid)).toEqual([before.pvc]);
  });

  it('running, unmigrated, first new-version build is a stop: the PVC is imported, the old Deployment is forgotten, and the next start imports it', async () => {
    const before = await uids(1);
    const stop = await build(1, { transition: 'stop', template_version_id: zeroTouch });
    expect(stop.build.job.status).toBe('succeeded');
    expect(types(1)).toEqual(['kubernetes_persistent_volume_claim_v1']);
    // Forgotten, not destroyed: still running until the next start adopts it.
    expect(await uids(1)).toEqual(before);
    const start = await build(1, { transition: 'start', template_version_id: zeroTouch });
    expect(start.build.job.status).toBe('succeeded');
    expect(await uids(1)).toEqual(before);
    expect(types(1)).toEqual(['kubernetes_deployment_v1', 'kubernetes_persistent_volume_claim_v1']);
  });

  it('stopped, unmigrated: a stop on the new version imports the PVC; the start creates the Deployment and leaves the PVC alone', async () => {
    await build(2, { transition: 'stop', template_version_id: sim.template.originalVersionId });
    const pvc = (await uids(2)).pvc;
    expect((await uids(2)).deployment).toBeUndefined();
    const stop = await build(2, { transition: 'stop', template_version_id: zeroTouch });
    expect(stop.build.job.status).toBe('succeeded');
    expect(types(2)).toEqual(['kubernetes_persistent_volume_claim_v1']);
    const start = await build(2, { transition: 'start', template_version_id: zeroTouch });
    expect(start.build.job.status).toBe('succeeded');
    const after = await uids(2);
    expect(after.pvc).toBe(pvc);
    expect(after.deployment).toBeDefined();
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(2).id)).toEqual([]);
  });

  it('without the start_count guard, a stop on the new version fails at plan ("Configuration for import target does not exist") and changes nothing', async () => {
    const unguarded = generated.map((f) => ({ name: f.path, content: f.content.replace(/data\.coder_workspace\.me\.start_count > 0 && /g, '') }));
    expect(unguarded.find((f) => f.name === DEFAULT_ZERO_TOUCH_FILE_NAME)!.content).not.toContain('start_count');
    const version = await pushTemplateVersion(sim, unguarded, { name: 'zero-touch-unguarded' });
    expect(version.job.status).toBe('succeeded');
    const before = await uids(3);
    const stop = await build(3, { transition: 'stop', template_version_id: version.id });
    expect(stop.build.job.status).toBe('failed');
    expect(stop.log).toMatch(/Configuration for import target does not exist/);
    expect(await uids(3)).toEqual(before);
    expect(types(3)).toEqual(['kubernetes_deployment', 'kubernetes_persistent_volume_claim']);
  });

  it('a brand-new workspace (no state, no objects) created on the zero-touch version creates both, and the next build changes nothing', async () => {
    const created = await api<{ id: string; latest_build: { id: string } }>(sim, 'POST', '/users/alice/workspaces', { json: { name: 'brand-new', template_version_id: zeroTouch } });
    expect(created.status).toBe(201);
    const wsId = created.body.id;
    const first = (await waitForBuild(sim, created.body.latest_build.id, REAL_BUILD_TIMEOUT_MS)).build;
    expect(first.job.status).toBe('succeeded');
    const firstLog = (await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${first.id}/logs`)).body.map((l) => l.output).join('\n');
    expect(firstLog).not.toMatch(/Importing|imported/i);
    expect(firstLog).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\./);
    const uidsOf = async () => ({
      pvc: (await kube.client.get('PersistentVolumeClaim', 'coder', homePvcName(wsId)))?.uid,
      deployment: (await kube.client.get('Deployment', 'coder', `coder-${wsId}`))?.uid,
    });
    const made = await uidsOf();
    expect(made.pvc).toBeDefined();
    expect(made.deployment).toBeDefined();
    const stateTypes = (JSON.parse(sim.stateOf(wsId)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_')).map((r) => r.type).sort();
    expect(stateTypes).toEqual(['kubernetes_deployment_v1', 'kubernetes_persistent_volume_claim_v1']);
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${wsId}/builds`, { json: { transition: 'start', template_version_id: zeroTouch } });
    expect(res.status).toBe(201);
    const again = (await waitForBuild(sim, res.body.id, REAL_BUILD_TIMEOUT_MS)).build;
    expect(again.job.status).toBe('succeeded');
    const againLog = (await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${again.id}/logs`)).body.map((l) => l.output).join('\n');
    expect(againLog).toMatch(/Resources: 0 added, \d+ changed, 0 destroyed\./);
    expect(await uidsOf()).toEqual(made);
  });
});
