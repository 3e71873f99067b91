import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { makeStartPinned } from '../../src/activities/start-pinned';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { sha256Hex } from '../../src/adapters/hash';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, latestBuildId, migrateStateByHand, pushTemplateVersion, putState } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { buildWithState: makeBuildWithState, startPinned: makeStartPinned, stopWorkspace: makeStopWorkspace };

describe('the plan guard refuses a downgrade on every build wsmigrate starts', () => {
  let sim: CoderSimulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-downgrade-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = () => stepsOf({ coder: new CoderClient({ url: sim.url, token: sim.token }), blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } }, STEPS);

  it('a start or stop of a migrated workspace on the pre-migration version is refused before any build; the _v1 version still builds', async () => {
    const ws = sim.workspaces()[0];
    const buildId = await latestBuildId(sim, ws.id);
    const pulled = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    expect((await putState(sim, buildId, migrateStateByHand(pulled.text))).status).toBe(204);
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'));
    const pvc = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const number = (await coder.workspace(ws.id)).latest_build.build_number;
    const a = acts();

    // Every hazard named, and what to do instead: the whole message, as the SRE reads it.
    const destroys = (v1: string, old: string) => `${v1} is migrated, but this version declares the old ${old}: the build would destroy it and re-create it empty`;
    await expect(a.startPinned({ workspaceId: ws.id, subject: 'alice/dev', templateVersionId: sim.template.originalVersionId, afterBuildNumber: number, timeoutMs: 30_000 })).rejects.toThrow(
      `start build refused for alice/dev: template version ${sim.template.originalVersionId} is older than this workspace's migrated state (` +
        `${destroys('kubernetes_persistent_volume_claim_v1.home', 'kubernetes_persistent_volume_claim.home')}; ${destroys('kubernetes_deployment_v1.main', 'kubernetes_deployment.main')}). ` +
        'Build it with the migrated (_v1) version instead. Archiving the pre-migration versions only hides them: Coder still builds an archived version through the API.',
    );
    // A stop reuses the latest build's version: the old one here (the state was pushed with no build).
    await expect(a.stopWorkspace({ workspaceId: ws.id, subject: 'alice/dev', afterBuildNumber: number, timeoutMs: 30_000 })).rejects.toThrow(/stop build refused/);
    expect((await coder.workspace(ws.id)).latest_build.build_number).toBe(number);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(pvc);

    const ok = await a.startPinned({ workspaceId: ws.id, subject: 'alice/dev', templateVersionId: v1.id, afterBuildNumber: number, timeoutMs: 30_000 });
    expect(ok.buildNumber).toBe(number + 1);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(pvc);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });

  it('a state whose home PVC alone is _v1 (moved by hand) is one hazard, refused all the same: no stop on the pre-migration version, the PVC kept', async () => {
    const ws = sim.workspaces()[2];
    const buildId = await latestBuildId(sim, ws.id);
    const pulled = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    const pvcOnly = pulled.text.replace(/"type": ?"kubernetes_persistent_volume_claim"/g, '"type": "kubernetes_persistent_volume_claim_v1"');
    expect(pvcOnly).not.toBe(pulled.text);
    expect((await putState(sim, buildId, pvcOnly)).status).toBe(204);
    const pvc = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const number = (await coder.workspace(ws.id)).latest_build.build_number;
    await expect(acts().stopWorkspace({ workspaceId: ws.id, subject: 'carol/dev', afterBuildNumber: number, timeoutMs: 30_000 })).rejects.toThrow(
      /^stop build refused for carol\/dev: template version .* is older than this workspace's migrated state \(kubernetes_persistent_volume_claim_v1\.home is migrated, but this version declares the old kubernetes_persistent_volume_claim\.home: the build would destroy it and re-create it empty\)\./,
    );
    expect((await coder.workspace(ws.id)).latest_build.build_number).toBe(number);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(pvc);
  });

  it('a build carrying a migrated state onto the pre-migration version is refused before it is sent', async () => {
    const ws = sim.workspaces()[1];
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const latest = (await coder.workspace(ws.id)).latest_build;
    const blobs = createFileBlobStore({ dir });
    const migrated = await blobs.put(Buffer.from(migrateStateByHand((await coder.getWorkspaceBuildState(latest.id)).toString('utf8'))), { kind: 'migrated-state', label: 'test' });
    const build = {
      purpose: 'migrate' as const,
      workspaceId: ws.id,
      subject: 'bob/dev',
      transition: 'start' as const,
      state: { ref: migrated.ref, sha256: migrated.sha256 },
      read: { id: latest.id, buildNumber: latest.build_number },
      timeoutMs: 30_000,
    };
    await expect(acts().buildWithState({ ...build, templateVersionId: sim.template.originalVersionId })).rejects.toThrow(/migrated-state build refused for bob\/dev: template version .* is older than this workspace's migrated state/);
    // As the workflow sends it, with the sha256 of the (unmigrated) state the read build holds: the bytes judged are still the ones the build carries.
    const read = { ...build.read, stateSha256: sha256Hex(await coder.getWorkspaceBuildState(latest.id)) };
    await expect(acts().buildWithState({ ...build, read, templateVersionId: sim.template.originalVersionId })).rejects.toThrow(/migrated-state build refused for bob\/dev: template version .* is older than this workspace's migrated state/);
    expect((await coder.workspace(ws.id)).latest_build.id).toBe(latest.id);
  });

  it('an unmigrated workspace builds on its old version as before', async () => {
    const ws = sim.workspaces()[1];
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const number = (await coder.workspace(ws.id)).latest_build.build_number;
    const stop = await acts().stopWorkspace({ workspaceId: ws.id, subject: 'bob/dev', afterBuildNumber: number, timeoutMs: 30_000 });
    expect(stop).toBeDefined();
    expect((await coder.workspace(ws.id)).latest_build.transition).toBe('stop');
  });
  it('a state that is not Terraform JSON is not the guard\'s to judge (the preflight refuses it): the stop is sent to Coder as asked', async () => {
    const ws = sim.workspaces()[1];
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const latest = (await coder.workspace(ws.id)).latest_build;
    expect((await putState(sim, latest.id, 'not a terraform state')).status).toBe(204);
    // Whatever the provisioner makes of it, the build was made: the guard did not stop it, nor crash on it.
    await acts()
      .stopWorkspace({ workspaceId: ws.id, subject: 'bob/dev', afterBuildNumber: latest.build_number, timeoutMs: 30_000 })
      .catch((e: { type?: string }) => expect(e.type).toBe(FailureType.buildFailed));
    expect((await coder.workspace(ws.id)).latest_build).toMatchObject({ build_number: latest.build_number + 1, transition: 'stop' });
  });
});
