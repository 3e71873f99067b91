import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../src/activities';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

/**
 * Option A's stop takes a newer build for its own only when it made it: the first half of an owner's
 * "Update and Restart" (a stop on the previous version) or Coder's autostop has the same shape, and
 * taking it for ours would back up what the owner's next build leaves behind.
 */
describe("option A's stop and someone else's stop", () => {
  let sim: CoderSimulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-stop-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => new CoderClient({ url: sim.url, token: sim.token });
  const acts = () => createActivities({ coder: admin(), blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } });

  it("an owner's stop after the preflight is theirs: the step refuses it (someone built meanwhile) and builds nothing", async () => {
    const ws = sim.workspaces()[0];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    const owner = new CoderClient({ url: sim.url, token: sim.tokenOf(ws.owner) });
    const theirs = await owner.waitForBuild((await owner.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    await expect(acts().stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000 })).rejects.toMatchObject({
      type: 'WsmigrateBuiltMeanwhile',
      message: expect.stringMatching(new RegExp(`build #${theirs.build_number} \\(stop, succeeded\\) was started by ${ws.owner} after build #${read}`)),
    });
    expect((await admin().workspace(ws.id)).latest_build.id).toBe(theirs.id);
  });

  it('a stop this token started right after the read (an attempt that died before its heartbeat) is taken as ours, not run twice', async () => {
    const ws = sim.workspaces()[1];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    const ours = await admin().createWorkspaceBuild(ws.id, { transition: 'stop' });
    const done = await acts().stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000 });
    expect(done).toEqual({ buildId: ours.id, buildNumber: read + 1 });
    expect((await admin().workspace(ws.id)).latest_build.build_number).toBe(read + 1);
  });
});
