import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, homePvcName, latestBuildId, startBuild, waitForBuild, type BuildJson } from './helpers';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

type WorkspaceJson = { dormant_at: string | null; deleting_at: string | null; deleted?: boolean };

/**
 * The auto-delete of dormant workspaces as coderd/coder has it: deleting_at is dormant_at +
 * time_til_dormant_autodelete (coderd/database/queries/workspaces.sql UpdateWorkspaceDormantDeletingAt,
 * UpdateWorkspacesDormantDeletingAtByTemplateID), and the lifecycle executor gives a dormant workspace
 * past it a delete build with reason autodelete (coderd/autobuild/lifecycle_executor.go
 * isEligibleForDelete), retrying a failed one only 24 hours after it finished.
 */
describe('simulator: dormant workspaces are deleted after time_til_dormant_autodelete', () => {
  let sim: CoderSimulator;
  afterEach(async () => sim?.close());

  const makeDormant = async (id: string) => (await api<WorkspaceJson>(sim, 'PUT', `/workspaces/${id}/dormant`, { json: { dormant: true } })).body;
  const workspace = async (id: string) => (await api<WorkspaceJson>(sim, 'GET', `/workspaces/${id}?include_deleted=true`)).body;
  const latest = async (wsId: string) => (await api<BuildJson & { reason: string }>(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, wsId)}`)).body;

  test('deleting_at is dormant_at + the template setting; past it the next tick deletes the workspace and its home PVC', async () => {
    sim = await startSimulator({ workspaces: 2, seed: 71, buildLatencyMs: 5, dormancy: { timeTilDormantAutodeleteMs: 7 * DAY } });
    const [ws, other] = sim.workspaces();
    await startBuild(sim, ws!.id, { transition: 'stop' });
    const made = await makeDormant(ws!.id);
    expect(made.deleting_at).toBe(new Date(Date.parse(made.dormant_at!) + 7 * DAY).toISOString());
    expect((await workspace(other!.id)).deleting_at).toBeNull();
    const due = Date.parse(made.deleting_at!);
    expect(sim.lifecycleTick(new Date(due - 60_000)).transitions).toEqual({});
    expect(sim.lifecycleTick(new Date(due + 60_000)).transitions).toEqual({ [ws!.id]: 'delete' });
    const del = await latest(ws!.id);
    expect(del).toMatchObject({ transition: 'delete', reason: 'autodelete' });
    expect((await waitForBuild(sim, del.id)).build.job.status).toBe('succeeded');
    expect(sim.workspaces().map((w) => w.id)).toEqual([other!.id]);
    expect(sim.cluster.pvc('coder', homePvcName(ws!.id))).toBeUndefined();
    // GetWorkspacesEligibleForTransition lists only workspaces not deleted: a deleted one is never built again.
    const after = sim.lifecycleTick(new Date(due + 2 * DAY), { force: true });
    expect([after.transitions, after.errors]).toEqual([{}, {}]);
  });

  test('the default template (0) never deletes a dormant workspace, and its deleting_at stays null', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 72, buildLatencyMs: 5 });
    const ws = sim.workspaces()[0]!;
    expect((await makeDormant(ws.id)).deleting_at).toBeNull();
    expect(sim.lifecycleTick(new Date(Date.now() + 365 * DAY)).transitions).toEqual({});
  });

  test('a template PATCH of time_til_dormant_autodelete moves deleting_at of workspaces already dormant; making one active clears it', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 73, buildLatencyMs: 5 });
    const ws = sim.workspaces()[0]!;
    const made = await makeDormant(ws.id);
    const tpl = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    const patched = await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...tpl, time_til_dormant_autodelete_ms: DAY } });
    expect(patched.status).toBe(200);
    expect((await workspace(ws.id)).deleting_at).toBe(new Date(Date.parse(made.dormant_at!) + DAY).toISOString());
    expect((await api<WorkspaceJson>(sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: false } })).body).toMatchObject({ dormant_at: null, deleting_at: null });
    expect(sim.lifecycleTick(new Date(Date.now() + 2 * DAY)).transitions).toEqual({});
  });

  test('a failed auto-delete is not tried again until 24 hours after it finished', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 74, buildLatencyMs: 5, dormancy: { timeTilDormantAutodeleteMs: HOUR } });
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    await makeDormant(ws.id);
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'delete', times: 1 } });
    expect(sim.lifecycleTick(new Date(Date.now() + 2 * HOUR)).transitions).toEqual({ [ws.id]: 'delete' });
    const failed = await waitForBuild(sim, (await latest(ws.id)).id);
    expect(failed.build.job.status).toBe('failed');
    const finished = Date.parse(failed.build.job.completed_at!);
    expect(sim.lifecycleTick(new Date(finished + 23 * HOUR)).transitions).toEqual({});
    expect(sim.lifecycleTick(new Date(finished + DAY + 2 * 60_000)).transitions).toEqual({ [ws.id]: 'delete' });
  });

  test('dormancy comes first: an idle workspace is made dormant (and stopped) by one tick, deleted by a later one', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 75, buildLatencyMs: 5, dormancy: { timeTilDormantMs: DAY, timeTilDormantAutodeleteMs: DAY } });
    const ws = sim.workspaces()[0]!;
    expect(sim.lifecycleTick(new Date(Date.now() + 2 * DAY)).transitions).toEqual({ [ws.id]: 'stop' });
    expect(await latest(ws.id)).toMatchObject({ transition: 'stop', reason: 'dormancy' });
    await waitForBuild(sim, (await latest(ws.id)).id);
    const dormant = await workspace(ws.id);
    expect(dormant.deleting_at).toBe(new Date(Date.parse(dormant.dormant_at!) + DAY).toISOString());
    expect(sim.lifecycleTick(new Date(Date.parse(dormant.deleting_at!) + 60_000)).transitions).toEqual({ [ws.id]: 'delete' });
  });
  test('force fires the auto-delete of a dormant workspace before its deleting_at, and never one whose template does not auto-delete', async () => {
    sim = await startSimulator({ workspaces: 2, seed: 76, buildLatencyMs: 5, dormancy: { timeTilDormantAutodeleteMs: 7 * DAY } });
    const [ws, other] = sim.workspaces();
    await startBuild(sim, ws!.id, { transition: 'stop' });
    await makeDormant(ws!.id);
    expect(sim.lifecycleTick(new Date(), { force: true, workspaceIds: [ws!.id] }).transitions).toEqual({ [ws!.id]: 'delete' });
    await waitForBuild(sim, (await latest(ws!.id)).id);
    const tpl = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...tpl, time_til_dormant_autodelete_ms: 0 } })).status).toBe(200);
    await startBuild(sim, other!.id, { transition: 'stop' });
    await makeDormant(other!.id);
    expect(sim.lifecycleTick(new Date(), { force: true }).transitions).toEqual({});
  });
});
