import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makePushTemplateVersion } from '../../src/activities/push-template-version';
import { makeRewriteTemplateSource } from '../../src/activities/rewrite-template-source';
import { makeStartPinned } from '../../src/activities/start-pinned';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

// Long waits must heartbeat: the workflows give them a heartbeat timeout so a dead worker's step
// moves to another worker, and a step that waits silently would be killed as if it had died.
describe('long-waiting activities heartbeat', () => {
  let sim: CoderSimulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 400 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-hb-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = () =>
    stepsOf(
      {
        coder: new CoderClient({ url: sim.url, token: sim.token }),
        blobs: createFileBlobStore({ dir }),
        notifier: { notify: async () => undefined },
      },
      { rewriteTemplateSource: makeRewriteTemplateSource, pushTemplateVersion: makePushTemplateVersion, startPinned: makeStartPinned },
    );

  it('pushTemplateVersion heartbeats while Coder imports the new version', async () => {
    const a = acts();
    const t = await new CoderClient({ url: sim.url, token: sim.token }).template(sim.template.id);
    const rewritten = await a.rewriteTemplateSource({ subject: 't', versionId: t.active_version_id, renameDifferent: false });
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const pushed: { versionId: string; versionName: string } = await env.run(a.pushTemplateVersion, { subject: 't', organizationId: sim.orgId, templateId: sim.template.id, sourceRef: rewritten.source!.ref, versionName: rewritten.versionName, sourceVersionId: t.active_version_id });
    expect(pushed.versionName).toBe(rewritten.versionName);
    expect(beats.length).toBeGreaterThan(0);
    expect(beats[0]).toMatchObject({ versionId: pushed.versionId });
  });

  it('startPinned heartbeats while the build runs', async () => {
    const a = acts();
    const ws = sim.workspaces()[0];
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const latest = (await coder.workspace(ws.id)).latest_build;
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(a.startPinned, { workspaceId: ws.id, subject: 'x', templateVersionId: latest.template_version_id, afterBuildNumber: latest.build_number, timeoutMs: 60_000 });
    expect(beats.length).toBeGreaterThan(0);
  });
});
