import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, claimForgottenAndGenerated, homePvcName, pushTemplateVersion, startBuild, waitForBuild, withGeneratedConfigMap } from './helpers';

/**
 * `metadata.generate_name` (hashicorp/kubernetes: ForceNew, conflicts with `name`): the API server
 * names the object at create (the prefix and five characters of apimachinery's alphabet), the
 * provider keeps both in state, and later plans keep the object while the prefix stays. Public
 * Coder templates name their config maps so; a claim named so is created anew, never adopted.
 */
interface StateJson {
  resources: { type: string; name: string; instances: { attributes: { id: string; metadata: { name: string; generate_name: string; namespace: string; uid: string }[]; spec?: unknown } }[] }[];
}

const SUFFIX = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;

describe('simulator: generate_name, as the API server and the kubernetes provider do it', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 83, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const configMap = (name: string) => sim.cluster.objects().find((o) => o.kind === 'ConfigMap' && o.namespace === 'coder' && o.name === name);
  const state = (workspaceId: string) => JSON.parse(sim.stateOf(workspaceId)) as StateJson;
  const instanceOf = (s: StateJson, type: string, name: string) => s.resources.find((r) => r.type === type && r.name === name)?.instances[0]?.attributes;
  const create = async (name: string) => {
    const res = await api<{ id: string; latest_build: { id: string } }>(sim, 'POST', '/users/me/workspaces', { json: { name, template_id: sim.template.id } });
    expect(res.status).toBe(201);
    expect((await waitForBuild(sim, res.body.latest_build.id)).build.job.status).toBe('succeeded');
    return res.body.id;
  };

  test('a config map named by generate_name is created under the prefix and five characters, and what refers to it reads that name', async () => {
    await pushTemplateVersion(sim, withGeneratedConfigMap('coder-init-'), { promote: true });
    const id = await create('with-config-map');
    const cm = instanceOf(state(id), 'kubernetes_config_map', 'init');
    const meta = cm?.metadata[0];
    expect(meta?.generate_name).toBe('coder-init-');
    expect(meta?.name.startsWith('coder-init-')).toBe(true);
    expect(meta?.name.slice('coder-init-'.length)).toMatch(SUFFIX);
    expect(cm?.id).toBe(`coder/${meta?.name}`);
    const live = configMap(meta!.name);
    expect(live?.uid).toBe(meta?.uid);
    expect(JSON.stringify(instanceOf(state(id), 'kubernetes_deployment', 'main')?.spec)).toContain(`"name":"${meta?.name}"`);
  });

  test('a stop and a start keep the generated object (same name, same uid); a new prefix replaces it', async () => {
    await pushTemplateVersion(sim, withGeneratedConfigMap('coder-init-'), { promote: true });
    const id = await create('kept');
    const first = instanceOf(state(id), 'kubernetes_config_map', 'init')!.metadata[0]!;
    await startBuild(sim, id, { transition: 'stop' });
    await startBuild(sim, id, { transition: 'start' });
    const again = instanceOf(state(id), 'kubernetes_config_map', 'init')!.metadata[0]!;
    expect({ name: again.name, uid: again.uid }).toEqual({ name: first.name, uid: first.uid });

    const v3 = await pushTemplateVersion(sim, withGeneratedConfigMap('coder-boot-'));
    const build = await startBuild(sim, id, { transition: 'start', template_version_id: v3.id });
    expect(build.job.status).toBe('succeeded');
    const replaced = instanceOf(state(id), 'kubernetes_config_map', 'init')!.metadata[0]!;
    expect(replaced.name.startsWith('coder-boot-')).toBe(true);
    expect(configMap(first.name)).toBeUndefined();
    expect(configMap(replaced.name)?.uid).toBe(replaced.uid);
  });

  test('a claim forgotten by `removed` and declared again with generate_name is a new claim beside the old one (the old keeps its data)', async () => {
    const [ws] = sim.workspaces();
    const oldName = homePvcName(ws!.id);
    const oldUid = sim.cluster.pvc('coder', oldName)!.uid;
    const version = await pushTemplateVersion(sim, claimForgottenAndGenerated());
    expect(version.job.status).toBe('succeeded');
    const build = await startBuild(sim, ws!.id, { transition: 'start', template_version_id: version.id });
    expect(build.job.status).toBe('succeeded');
    const claim = instanceOf(state(ws!.id), 'kubernetes_persistent_volume_claim_v1', 'home')!.metadata[0]!;
    expect(claim.name).not.toBe(oldName);
    expect(claim.name.startsWith(`${oldName}-`)).toBe(true);
    expect(claim.uid).not.toBe(oldUid);
    // The old claim is still in the cluster, unmanaged, its data intact; nothing was destroyed.
    expect(sim.cluster.pvc('coder', oldName)?.uid).toBe(oldUid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${build.id}/logs`);
    const text = logs.body.map((l) => l.output).join('\n');
    expect(text).toContain('kubernetes_persistent_volume_claim.home: Removing from state (destroy = false)');
    expect(text).not.toMatch(/persistent_volume_claim[^\n]*Destroying/);
  });
});
