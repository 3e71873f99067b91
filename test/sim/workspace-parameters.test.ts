import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild } from './helpers';

/** The seeded template with its home size, region and a one-build flag as coder_parameters. */
const PARAMETERS = `
data "coder_parameter" "home_size" {
  name    = "home_disk_size"
  type    = "number"
  default = 10
  mutable = true
  validation {
    min = 1
    max = 100
  }
}
data "coder_parameter" "region" {
  name    = "region"
  default = "eu"
  option {
    name  = "Europe"
    value = "eu"
  }
  option {
    name  = "America"
    value = "us"
  }
}
data "coder_parameter" "debug" {
  name      = "debug"
  type      = "bool"
  default   = false
  mutable   = true
  ephemeral = true
}
`;
const TEMPLATE = K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "${data.coder_parameter.home_size.value}Gi"') + PARAMETERS;
const REQUIRED_REGION_SIZE = TEMPLATE + `
data "coder_parameter" "quota" {
  name = "quota"
  type = "number"
}
`;

interface Answer {
  status: number;
  body: { id: string; message?: string; detail?: string };
}

/**
 * Workspace build parameters as coderd resolves them (coderd/wsbuilder/wsbuilder.go getParameters,
 * codersdk ParameterResolver.ValidateResolve): the request's value, else the previous build's (not for an
 * ephemeral one), else the default; an immutable one cannot change; a required one needs a value.
 */
describe('simulator: workspace build parameters carried from build to build', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    // The classic flow's wording (getClassicParameters); the dynamic flow's is in dynamic-parameters.test.ts.
    sim = await startSimulator({ workspaces: 0, seed: 92, buildLatencyMs: 5, templateFiles: [{ name: 'main.tf', content: TEMPLATE }], useClassicParameterFlow: true });
  });
  afterEach(async () => sim.close());

  async function push(source: string): Promise<string> {
    const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: await packTar([{ name: 'main.tf', content: source }]), contentType: 'application/x-tar' });
    const created = await api<{ id: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
      json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform' },
    });
    for (;;) {
      const v = await api<{ job: { status: string } }>(sim, 'GET', `/templateversions/${created.body.id}`);
      if (v.body.job.status === 'succeeded') return created.body.id;
      if (v.body.job.status !== 'pending' && v.body.job.status !== 'running') throw new Error(`import ${v.body.job.status}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const parameters = async (buildId: string) => (await api<{ name: string; value: string }[]>(sim, 'GET', `/workspacebuilds/${buildId}/parameters`)).body.sort((x, y) => x.name.localeCompare(y.name));
  const build = async (workspaceId: string, body: Record<string, unknown>) => (await api(sim, 'POST', `/workspaces/${workspaceId}/builds`, { json: body })) as unknown as Answer;
  /** The claim's requested size in the state Coder holds for the workspace's latest build. */
  async function storage(workspaceId: string): Promise<unknown> {
    const ws = await api<{ latest_build: { id: string } }>(sim, 'GET', `/workspaces/${workspaceId}`);
    const state = await api<{ resources: { type: string; instances: { attributes: { spec: { resources: { requests: { storage: string } }[] }[] } }[] }[] }>(sim, 'GET', `/workspacebuilds/${ws.body.latest_build.id}/state`);
    return state.body.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim')?.instances[0]?.attributes.spec[0]?.resources[0]?.requests.storage;
  }

  async function createWorkspace(values: { name: string; value: string }[]): Promise<{ id: string; latest_build: { id: string } }> {
    const res = await api<{ id: string; latest_build: { id: string } }>(sim, 'POST', `/organizations/${sim.orgId}/members/me/workspaces`, {
      json: { name: 'dev-1', template_id: sim.template.id, rich_parameter_values: values },
    });
    expect(res.status).toBe(201);
    for (;;) {
      const b = await api<{ job: { status: string } }>(sim, 'GET', `/workspacebuilds/${res.body.latest_build.id}`);
      if (b.body.job.status === 'succeeded') return res.body;
      if (b.body.job.status !== 'pending' && b.body.job.status !== 'running') throw new Error(`first build ${b.body.job.status}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  test("a workspace created with 20 keeps 20 through a stop and a start on a new version: its claim is never resized or replaced", async () => {
    const ws = await createWorkspace([{ name: 'home_disk_size', value: '20' }, { name: 'debug', value: 'true' }]);
    expect(await storage(ws.id)).toBe('20Gi');
    const uid = sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid;
    expect(await parameters(ws.latest_build.id)).toEqual([
      { name: 'debug', value: 'true' },
      { name: 'home_disk_size', value: '20' },
      { name: 'region', value: 'eu' },
    ]);
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    // Ephemeral: the next build takes its default again.
    expect(await parameters(stop.id)).toEqual([
      { name: 'debug', value: 'false' },
      { name: 'home_disk_size', value: '20' },
      { name: 'region', value: 'eu' },
    ]);
    const next = await push(TEMPLATE.replace('"coder_agent" "main" {', '"coder_agent" "main" {\n  # v2'));
    const start = await startBuild(sim, ws.id, { transition: 'start', template_version_id: next });
    expect(start.job.status).toBe('succeeded');
    expect((await parameters(start.id)).find((p) => p.name === 'home_disk_size')?.value).toBe('20');
    expect(await storage(ws.id)).toBe('20Gi');
    expect(sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(uid);
  });

  test('an immutable parameter cannot change, an option must be one of its values, a number keeps to its range: 400 and nothing built', async () => {
    const ws = await createWorkspace([]);
    const builds = async () => (await api<unknown[]>(sim, 'GET', `/workspaces/${ws.id}/builds`)).body.length;
    const before = await builds();
    const immutable = await build(ws.id, { transition: 'stop', rich_parameter_values: [{ name: 'region', value: 'us' }] });
    expect(immutable.status).toBe(400);
    expect(immutable.body.message).toBe('Unable to validate parameter "region"');
    expect(immutable.body.detail).toContain(`Parameter "region" is not mutable, so it can't be updated after creating a workspace.`);
    const range = await build(ws.id, { transition: 'stop', rich_parameter_values: [{ name: 'home_disk_size', value: '500' }] });
    expect(range.status).toBe(400);
    expect(range.body.detail).toContain('provided value 500 is more than the maximum 100');
    expect(await builds()).toBe(before);
    // The same value as before is no change.
    expect((await build(ws.id, { transition: 'stop', rich_parameter_values: [{ name: 'region', value: 'eu' }] })).status).toBe(201);
  });

  test('an option outside the list is refused at creation, and the workspace is not created', async () => {
    const res = await api<{ message: string; detail: string }>(sim, 'POST', `/organizations/${sim.orgId}/members/me/workspaces`, {
      json: { name: 'dev-2', template_id: sim.template.id, rich_parameter_values: [{ name: 'region', value: 'mars' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('parameter value must match one of options: [eu us]');
    expect(sim.workspaces()).toHaveLength(0);
  });

  test('a claim whose storage shrinks is replaced, its data gone; one that grows is kept (hashicorp/kubernetes PVC CustomizeDiff)', async () => {
    const ws = await createWorkspace([{ name: 'home_disk_size', value: '20' }]);
    const first = sim.cluster.pvc('coder', `coder-${ws.id}-home`);
    await startBuild(sim, ws.id, { transition: 'start', rich_parameter_values: [{ name: 'home_disk_size', value: '30' }] });
    expect(sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(first?.uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    const shrunk = await startBuild(sim, ws.id, { transition: 'start', rich_parameter_values: [{ name: 'home_disk_size', value: '10' }] });
    expect(shrunk.job.status).toBe('succeeded');
    expect(sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).not.toBe(first?.uid);
    expect(sim.cluster.pvcLosses()).toMatchObject([{ workspace: ws.id, oldUid: first?.uid, buildId: shrunk.id }]);
    expect(await storage(ws.id)).toBe('10Gi');
  });

  test('a version that adds a required parameter cannot be built until the build gives it a value; then it is carried', async () => {
    const ws = await createWorkspace([]);
    await startBuild(sim, ws.id, { transition: 'stop' });
    const next = await push(REQUIRED_REGION_SIZE);
    const rich = await api<{ name: string; required: boolean; default_value: string }[]>(sim, 'GET', `/templateversions/${next}/rich-parameters`);
    expect(rich.body.find((p) => p.name === 'quota')).toMatchObject({ required: true, default_value: '' });
    const refused = await build(ws.id, { transition: 'start', template_version_id: next });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('Parameter "quota" is required but not provided');
    const given = await startBuild(sim, ws.id, { transition: 'start', template_version_id: next, rich_parameter_values: [{ name: 'quota', value: '5' }] });
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    expect((await parameters(given.id)).find((p) => p.name === 'quota')?.value).toBe('5');
    expect((await parameters(stop.id)).find((p) => p.name === 'quota')?.value).toBe('5');
  });
});
