import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, putState, startBuild, waitForBuild } from './helpers';

describe('simulator: GET/PUT /workspacebuilds/{id}/state', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 3, seed: 5, buildLatencyMs: 40 });
  });
  afterEach(async () => {
    await sim.close();
  });

  test('GET answers the raw state bytes as application/json: a v4 state of the seeded template', async () => {
    const ws = sim.workspaces()[0];
    const res = await api(sim, 'GET', `/workspacebuilds/${ws?.latestBuildId}/state`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe(sim.stateOf(ws?.id as string));
    const state = JSON.parse(res.text) as {
      version: number;
      serial: number;
      lineage: string;
      resources: { mode: string; type: string; name: string; instances: { index_key?: number; attributes: Record<string, unknown> }[] }[];
    };
    expect(state.version).toBe(4);
    expect(state.lineage).toMatch(/^[0-9a-f-]{36}$/);
    const managed = state.resources.filter((r) => r.mode === 'managed').map((r) => `${r.type}.${r.name}`);
    expect(managed.sort()).toEqual(['coder_agent.main', 'kubernetes_deployment.main', 'kubernetes_persistent_volume_claim.home']);
    const pvc = state.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim');
    const pvcName = `coder-${ws?.id}-home`;
    expect(pvc?.instances[0]?.attributes.id).toBe(`coder/${pvcName}`);
    const metadata = (pvc?.instances[0]?.attributes.metadata as { uid: string; name: string }[])[0];
    expect(metadata?.uid).toBe(sim.cluster.pvc('coder', pvcName)?.uid);
    expect(state.resources.find((r) => r.type === 'kubernetes_deployment')?.instances[0]?.index_key).toBe(0);
    // Lineage is per workspace.
    const other = JSON.parse(sim.stateOf(sim.workspaces()[1]?.id as string)) as { lineage: string };
    expect(other.lineage).not.toBe(state.lineage);
  });

  test('PUT {state: base64} then GET round-trips the exact bytes, and the next build starts from them', async () => {
    const ws = sim.workspaces()[0];
    const buildId = ws?.latestBuildId as string;
    const original = JSON.parse(sim.stateOf(ws?.id as string)) as { serial: number };
    // Odd spacing and non-ASCII text must survive byte for byte.
    const edited = JSON.stringify({ ...original, serial: original.serial + 1, note: 'héllo ✓' }, null, 4) + '\n\n';
    const put = await putState(sim, buildId, edited);
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    const got = await fetch(`${sim.url}/api/v2/workspacebuilds/${buildId}/state`, { headers: { 'Coder-Session-Token': sim.token } });
    expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(edited, 'utf8'))).toBe(true);

    const stop = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    const after = JSON.parse((await api(sim, 'GET', `/workspacebuilds/${stop.id}/state`)).text) as { serial: number; note: string };
    expect(after.serial).toBe(original.serial + 2);
    expect(after.note).toBe('héllo ✓');
  });

  test('PUT also accepts the state as an array of byte values (the unconfirmed reading of the docs)', async () => {
    const ws = sim.workspaces()[0];
    const text = sim.stateOf(ws?.id as string).replace('"serial": 1', '"serial": 9');
    const put = await api(sim, 'PUT', `/workspacebuilds/${ws?.latestBuildId}/state`, { json: { state: [...Buffer.from(text)] } });
    expect(put.status).toBe(204);
    expect(sim.stateOf(ws?.id as string)).toBe(text);
  });

  test('PUT refuses bad bodies with 400 (invalid base64, non-JSON); `{}` stores an empty state (a nil []byte)', async () => {
    const ws = sim.workspaces()[0];
    const path = `/workspacebuilds/${ws?.latestBuildId}/state`;
    expect((await api(sim, 'PUT', path, { json: { state: 'not base64!' } })).status).toBe(400);
    expect((await api(sim, 'PUT', path, { body: Buffer.from('{'), contentType: 'application/json' })).status).toBe(400);
    expect(sim.stateOf(ws?.id as string)).not.toBe('');
    // coderd/workspacebuilds.go workspaceBuildUpdateState has no "required" on the field.
    expect((await api(sim, 'PUT', path, { json: {} })).status).toBe(204);
    expect(sim.stateOf(ws?.id as string)).toBe('');
  });

  test('PUT writes onto any build id, not only the latest: an older build takes the bytes, the latest keeps its own', async () => {
    const ws = sim.workspaces()[0];
    const older = ws?.latestBuildId as string;
    const stop = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    const latestBefore = sim.stateOf(ws?.id as string);
    expect((await putState(sim, older, '{"older":true}')).status).toBe(204);
    expect((await api(sim, 'GET', `/workspacebuilds/${older}/state`)).text).toBe('{"older":true}');
    expect((await api(sim, 'GET', `/workspacebuilds/${stop.id}/state`)).text).toBe(latestBefore);
  });

  describe('while a build runs (phases long enough that a PUT lands inside one)', () => {
    let slow: CoderSimulator;
    beforeEach(async () => {
      slow = await startSimulator({ workspaces: 1, seed: 6, buildLatencyMs: 500 });
    });
    afterEach(async () => {
      await slow.close();
    });

    test("PUT onto a build whose job is running answers 204 (no running-job check) and the job's completion writes its own state over it", async () => {
      const ws = slow.workspaces()[0];
      const res = await api<{ id: string }>(slow, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'stop' } });
      // Once the daemon has acquired the job (running), the state it plans from is fixed.
      for (;;) {
        const b = await api<{ job: { status: string } }>(slow, 'GET', `/workspacebuilds/${res.body.id}`);
        if (b.body.job.status === 'running') break;
        await new Promise((r) => setTimeout(r, 2));
      }
      const put = await putState(slow, res.body.id, '{"lost":true}');
      expect(put.status).toBe(204);
      expect((await api(slow, 'GET', `/workspacebuilds/${res.body.id}/state`)).text).toBe('{"lost":true}');
      const { build } = await waitForBuild(slow, res.body.id);
      expect(build.job.status).toBe('succeeded');
      const after = (await api(slow, 'GET', `/workspacebuilds/${res.body.id}/state`)).text;
      expect(after).not.toContain('lost');
      expect(after).toContain('kubernetes_persistent_volume_claim');
    });

    test('PUT onto a pending build (not yet acquired) is the state the job then runs on', async () => {
      const ws = slow.workspaces()[0];
      const doc = JSON.parse(slow.stateOf(ws?.id as string)) as { serial: number };
      const res = await api<{ id: string; job: { status: string } }>(slow, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'stop' } });
      expect(res.body.job.status).toBe('pending');
      expect((await putState(slow, res.body.id, JSON.stringify({ ...doc, serial: 77 }))).status).toBe(204);
      await waitForBuild(slow, res.body.id);
      expect((JSON.parse(slow.stateOf(ws?.id as string)) as { serial: number }).serial).toBe(78);
    });
  });

  test('without update on the template PUT is 404, never 403, even on the member\'s own workspace; GET is 404 too', async () => {
    const [mine, ...rest] = sim.workspaces();
    const theirs = rest.find((w) => w.owner !== mine?.owner);
    const get = await api<{ message: string }>(sim, 'GET', `/workspacebuilds/${mine?.latestBuildId}/state`, { token: sim.memberToken });
    expect(get.status).toBe(404);
    expect(get.body.message).toMatch(/^Resource not found or you do not have access to this resource/);
    const before = sim.stateOf(mine?.id as string);
    const own = await putState(sim, mine?.latestBuildId as string, '{}', sim.memberToken);
    expect(own.status).toBe(404);
    expect((own.body as { message: string }).message).toMatch(/^Resource not found or you do not have access to this resource/);
    expect((await putState(sim, theirs?.latestBuildId as string, '{}', sim.memberToken)).status).toBe(404);
    expect(sim.stateOf(mine?.id as string)).toBe(before);
  });
});

describe('simulator: PUT state exists only on releases with --no-build', () => {
  const cases: [string, number][] = [
    ['v2.26.9', 404],
    ['v2.27.9', 404],
    ['v2.27.10', 204],
    ['v2.28.6+abc1234', 404],
    ['v2.28.7+abc1234', 204],
    ['v2.29.1', 404],
    ['v2.29.2', 204],
    ['v2.30.0', 204],
    ['v2.31.7+sim0001', 204],
  ];
  test.each(cases)('%s answers %d', async (version, expected) => {
    const sim = await startSimulator({ workspaces: 1, version, buildLatencyMs: 5 });
    try {
      const ws = sim.workspaces()[0];
      const res = await putState(sim, ws?.latestBuildId as string, sim.stateOf(ws?.id as string));
      expect(res.status).toBe(expected);
      if (expected === 404) expect((res.body as { message: string }).message).toBe('Route not found.');
      // GET state is older than the PUT and is always there.
      expect((await api(sim, 'GET', `/workspacebuilds/${ws?.latestBuildId}/state`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
