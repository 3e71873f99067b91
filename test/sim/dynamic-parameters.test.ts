import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator, type SimulatorOptions } from '../../src/sim';
import { updateStopsFirst } from '../../src/sim/update-workspace';
import { api, fixtureSource, homePvcName, pushTemplateVersion, waitForBuild } from './helpers';

/** A region parameter, its value carried from build to build; the next version drops "us" from its options. */
const REGION = (options: string[]) => `
data "coder_parameter" "region" {
  name    = "region"
  default = "eu"
  mutable = true
${options.map((v) => `  option {\n    name  = "${v}"\n    value = "${v}"\n  }`).join('\n')}
}
data "coder_parameter" "size" {
  name    = "home_disk_size"
  type    = "number"
  default = 10
  mutable = true
  validation {
    min = 1
    max = 100
  }
}
`;
const TEMPLATE = K8S_TEMPLATE_MAIN_TF + REGION(['eu', 'us']);

interface ErrorBody {
  message: string;
  detail?: string;
  validations?: { field: string; detail: string }[];
}

/**
 * Coder's two parameter flows as a build that sends no values meets them (what wsmigrate's builds are):
 * coderd/wsbuilder/wsbuilder.go `getParameters` takes `getDynamicParameters` unless the template's
 * `use_classic_parameter_flow` is set (`usingDynamicParameters`); dynamic is Coder's default for new
 * templates. And the UI's "Update" (site/src/api/api.ts `updateWorkspace`), which before 2.31.1 (PR #22201)
 * starts a running workspace on the dynamic flow straight on the active version, without the stop.
 */
describe('simulator: the dynamic-parameters flow', () => {
  let sim: CoderSimulator;
  const start = async (opts: SimulatorOptions = {}) => {
    sim = await startSimulator({ workspaces: 1, seed: 31, buildLatencyMs: 5, templateFiles: [{ name: 'main.tf', content: TEMPLATE }], workspaceParameters: [{ name: 'region', value: 'us' }, { name: 'home_disk_size', value: '50' }], ...opts });
    return sim.workspaces()[0]!;
  };
  afterEach(async () => sim?.close());

  const builds = async (workspaceId: string) => (await api<unknown[]>(sim, 'GET', `/workspaces/${workspaceId}/builds`)).body.length;
  const template = async () => (await api<{ use_classic_parameter_flow: boolean }>(sim, 'GET', `/templates/${sim.template.id}`)).body;

  test('GET /templates/{id} and the workspace report the flow: dynamic by default; PATCH sets it, and a PATCH without the field keeps it', async () => {
    const ws = await start();
    expect((await template()).use_classic_parameter_flow).toBe(false);
    expect((await api<{ template_use_classic_parameter_flow: boolean }>(sim, 'GET', `/workspaces/${ws.id}`)).body.template_use_classic_parameter_flow).toBe(false);
    const current = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...current, use_classic_parameter_flow: true } })).status).toBe(200);
    expect((await template()).use_classic_parameter_flow).toBe(true);
    // `ptr.NilToDefault(req.UseClassicParameterFlow, template.UseClassicParameterFlow)`: omitted keeps it.
    const { use_classic_parameter_flow: _omitted, ...rest } = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...rest, description: 'changed' } })).status).toBe(200);
    expect((await template()).use_classic_parameter_flow).toBe(true);
    expect((await api<{ template_use_classic_parameter_flow: boolean }>(sim, 'GET', `/workspaces/${ws.id}`)).body.template_use_classic_parameter_flow).toBe(true);
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...rest, use_classic_parameter_flow: 'yes' } })).status).toBe(400);
  });

  test('a build with no values carries the previous ones onto the new version; values the new version refuses are a 400 naming each parameter, before any job: nothing built, the state untouched', async () => {
    const ws = await start();
    const narrowed = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF + REGION(['eu']).replace('max = 100', 'max = 40'));
    expect(narrowed.job.status).toBe('succeeded');
    const before = await builds(ws.id);
    const stateBefore = sim.stateOf(ws.id);
    const refused = await api<ErrorBody>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: narrowed.id } });
    // coderd/dynamicparameters/error.go DiagnosticError.Response: 400, one validation per parameter, sorted, no detail.
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Unable to validate parameters');
    expect(refused.body.detail).toBeUndefined();
    expect(refused.body.validations?.map((v) => v.field)).toEqual(['home_disk_size', 'region']);
    expect(refused.body.validations?.[0]?.detail).toContain('provided value 50 is more than the maximum 40');
    expect(refused.body.validations?.[1]?.detail).toContain('parameter value must match one of options: [eu]');
    expect(await builds(ws.id)).toBe(before);
    expect(sim.stateOf(ws.id)).toBe(stateBefore);

    // A version that still takes them: the carried values are what the build stores.
    const same = await pushTemplateVersion(sim, TEMPLATE.replace('"coder_agent" "main" {', '"coder_agent" "main" {\n  # v2'));
    const ok = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop', template_version_id: same.id } });
    expect(ok.status).toBe(201);
    await waitForBuild(sim, ok.body.id);
    const stored = (await api<{ name: string; value: string }[]>(sim, 'GET', `/workspacebuilds/${ok.body.id}/parameters`)).body;
    expect(stored.sort((a, b) => a.name.localeCompare(b.name))).toEqual([{ name: 'home_disk_size', value: '50' }, { name: 'region', value: 'us' }]);
  });

  test('the same refusal on the classic flow: the first bad parameter, its reason in detail', async () => {
    const ws = await start({ useClassicParameterFlow: true });
    const narrowed = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF + REGION(['eu']));
    const refused = await api<ErrorBody>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: narrowed.id } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Unable to validate parameter "region"');
    expect(refused.body.detail).toContain('parameter value must match one of options: [eu]');
    expect(refused.body.validations ?? []).toEqual([]);
  });

  test('which "Update" stops first, by release and flow (PR #18425 from 2.24.0 classic only, PR #22201 from 2.31.1 for both)', () => {
    expect(updateStopsFirst('v2.23.5', 'classic')).toBe(false);
    expect(updateStopsFirst('v2.24.0', 'classic')).toBe(true);
    expect(updateStopsFirst('v2.24.0', 'dynamic')).toBe(false);
    expect(updateStopsFirst('v2.31.0', 'dynamic')).toBe(false);
    expect(updateStopsFirst('v2.31.1', 'dynamic')).toBe(true);
    expect(updateStopsFirst('v2.31.7+sim0001', 'dynamic')).toBe(true);
    expect(updateStopsFirst('v0.0.0-devel+abc', 'dynamic')).toBe(true);
  });

  test('"Update" of a running workspace on 2.30 with the dynamic flow: no stop, a start straight on the active version; with the classic flow, the stop first', async () => {
    const ws = await start({ version: 'v2.30.4' });
    const next = await pushTemplateVersion(sim, TEMPLATE.replace('"coder_agent" "main" {', '"coder_agent" "main" {\n  # v2'), { promote: true });
    const before = await builds(ws.id);
    const direct = await sim.updateAndRestart(ws.id);
    expect(direct.stopBuildId).toBeUndefined();
    const started = (await waitForBuild(sim, direct.startBuildId)).build;
    expect(started.template_version_id).toBe(next.id);
    expect(started.build_number).toBe(before + 1);
    await sim.close();

    const classic = await start({ version: 'v2.30.4', useClassicParameterFlow: true });
    await pushTemplateVersion(sim, TEMPLATE.replace('"coder_agent" "main" {', '"coder_agent" "main" {\n  # v2'), { promote: true });
    const stopped = await sim.updateAndRestart(classic.id);
    expect(stopped.stopBuildId).toBeDefined();
  });

  test("the guard holds on the harsher Update: 2.30 dynamic starts a RUNNING unmigrated workspace straight on the guarded version; the build fails with AlreadyExists and the home volume stays", async () => {
    sim = await startSimulator({ workspaces: 1, seed: 32, buildLatencyMs: 5, version: 'v2.30.4' });
    const ws = sim.workspaces()[0]!;
    const before = sim.cluster.pvc('coder', homePvcName(ws.id));
    expect(before).toBeDefined();
    const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
    expect(guard.job.status).toBe('succeeded');
    const { stopBuildId, startBuildId } = await sim.updateAndRestart(ws.id);
    expect(stopBuildId).toBeUndefined();
    const { build } = await waitForBuild(sim, startBuildId);
    expect(build.template_version_id).toBe(guard.id);
    expect(build.job.status).toBe('failed');
    expect(build.job.error).toMatch(/persistentvolumeclaims "coder-[0-9a-f-]+-home" already exists \(AlreadyExists\)/);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))).toEqual(before);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });
});
