import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCheckProtectedKept } from '../../src/activities/check-protected-kept';
import { makePostBuildCheck } from '../../src/activities/post-build-check';
import { makeVerifyMigration } from '../../src/activities/verify-migration';
import { stepsOf } from './fixtures/steps';
import { cachedTemplateSourceLoader, type LoadTemplateSource } from '../../src/activities/template-source';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { checkProtectedKept: makeCheckProtectedKept, postBuildCheck: makePostBuildCheck, verifyMigration: makeVerifyMigration };

/**
 * The checks that stand between a migration and a lost volume, each met with the plan or the build
 * that must stop it: the plan guard inside verifyMigration, the post-build check after a start and
 * the protected-object check after a recovery's start. Each asserts the verdict or the refusal a
 * user reads, naming the resource.
 */

const V1 = fixtureSource('template-v1');
/** The _v1 template without its PVC: a start on it plans the home volume away. */
const V1_WITHOUT_PVC = V1.replace(/resource "kubernetes_persistent_volume_claim_v1" "home" \{[\s\S]*?\n\}\n/, '').replace(
  'kubernetes_persistent_volume_claim_v1.home.metadata.0.name',
  '"coder-${data.coder_workspace.me.id}-home"',
).replace(/depends_on = \[\s*kubernetes_persistent_volume_claim_v1\.home\s*\]/, '');
/** The _v1 template with the deployment still under its deprecated type: the migrated deployment would be re-created. */
const V1_OLD_DEPLOYMENT = V1.replace('resource "kubernetes_deployment_v1" "main"', 'resource "kubernetes_deployment" "main"');
/** The _v1 template with the agent marked protected. */
const V1_PROTECTED_AGENT = V1.replace('resource "coder_agent" "main"', '# wsmigrate:protect\nresource "coder_agent" "main"');
/** The old-deployment template with that deployment marked protected: re-creating it under its old type is a protected destroy. */
const V1_OLD_DEPLOYMENT_PROTECTED = V1_OLD_DEPLOYMENT.replace('resource "kubernetes_deployment" "main"', '# wsmigrate:protect\nresource "kubernetes_deployment" "main"');

describe('the safety checks of the activities, met with plans and builds that lose data', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let coder: CoderClient;
  const versions: Record<string, string> = {};

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 7, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-safety-'));
    blobs = createFileBlobStore({ dir });
    coder = new CoderClient({ url: sim.url, token: sim.token });
    for (const [name, source] of Object.entries({ v1: V1, noPvc: V1_WITHOUT_PVC, oldDeployment: V1_OLD_DEPLOYMENT, oldDeploymentProtected: V1_OLD_DEPLOYMENT_PROTECTED, protectedAgent: V1_PROTECTED_AGENT })) {
      const v = await pushTemplateVersion(sim, source);
      expect(v.job.status).toBe('succeeded');
      versions[name] = v.id;
    }
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = () => stepsOf({ coder, blobs, notifier: { notify: async () => undefined } }, STEPS);

  async function stateOf(wsIndex: number): Promise<string> {
    return (await api(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, sim.workspaces()[wsIndex].id)}/state`)).text;
  }
  async function stored(text: string): Promise<string> {
    return (await blobs.put(Buffer.from(text), { kind: 'state-backup', label: 'test', workspace: 'test' })).ref;
  }

  describe('verifyMigration: the plan guard on the target version', () => {
    it('allows a migrated state on the _v1 version, and its plan hash names exactly that state and version', async () => {
      const migrated = migrateStateByHand(await stateOf(0));
      const ref = await stored(migrated);
      const a = acts();
      const v = await a.verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.v1 });
      expect(v.verdict).toBe('allow');
      expect(v.summary).toMatch(/^ALLOW: this start destroys no protected resource/);
      expect(v.reasons).toEqual([]);
      expect(v.leftovers).toEqual([]);
      expect(v.planHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(v.plannedChanges).toEqual(expect.objectContaining({ 'no-op': expect.any(Number) }));
      expect(v.plannedChanges.delete).toBeUndefined();

      // The same inputs give the same hash (an approval survives a retry) ...
      expect((await a.verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.v1 })).planHash).toBe(v.planHash);
      // ... another state (one serial further) or another version does not: an old approval is refused.
      const bumped = JSON.parse(migrated) as { serial: number };
      bumped.serial += 1;
      const other = await a.verifyMigration({ subject: 'alice/dev', migratedRef: await stored(`${JSON.stringify(bumped, null, 2)}\n`), targetVersionId: versions.v1 });
      expect(other.verdict).toBe('allow');
      expect(other.planHash).not.toBe(v.planHash);
      const protectedAgent = await a.verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.protectedAgent });
      expect(protectedAgent.planHash).not.toBe(v.planHash);
    });

    it('keeps the guard\'s notes out of the reasons: a start that deletes an unprotected leftover object is allowed with no reason to act on', async () => {
      const migrated = JSON.parse(migrateStateByHand(await stateOf(0))) as { resources: unknown[] };
      migrated.resources.push({
        mode: 'managed',
        type: 'kubernetes_config_map_v1',
        name: 'extra',
        provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
        instances: [{ schema_version: 0, attributes: { id: 'coder/extra', metadata: [{ name: 'extra', namespace: 'coder', uid: 'cm-1' }] } }],
      });
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: await stored(`${JSON.stringify(migrated, null, 2)}\n`), targetVersionId: versions.v1 });
      expect(v.verdict).toBe('allow');
      expect(v.plannedChanges.delete).toBe(1);
      expect(v.reasons).toEqual([]);
    });

    it('lists at most 20 reasons, and every leftover deprecated instance, when many are left after the rewrite', async () => {
      const state = JSON.parse(await stateOf(0)) as { resources: { mode: string; type: string; name: string; instances: unknown[] }[] };
      for (let i = 0; i < 25; i++) state.resources.push({ mode: 'managed', type: 'kubernetes_config_map', name: `left${i}`, instances: [{ attributes: { id: `coder/left${i}` } }] });
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: await stored(JSON.stringify(state)), targetVersionId: versions.v1 });
      expect(v.verdict).toBe('deny');
      expect(v.leftovers).toHaveLength(25 + 2);
      expect(v.reasons).toHaveLength(20);
      expect(v.reasons[0]).toMatch(/still has a deprecated type after the rewrite$/);
    });

    it('names its step and the workspace when the migrated state cannot be read', async () => {
      await expect(acts().verifyMigration({ subject: 'alice/dev', migratedRef: 'blob:sha256:' + '0'.repeat(64), targetVersionId: versions.v1 })).rejects.toMatchObject({
        message: expect.stringMatching(/^verify migration failed for alice\/dev: /),
      });
    });

    it('denies a target version that drops the PVC, naming it', async () => {
      const ref = await stored(migrateStateByHand(await stateOf(0)));
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.noPvc });
      expect(v.verdict).toBe('deny');
      expect(v.summary).toBe(
        'DENY: this start would destroy 1 protected resource(s): kubernetes_persistent_volume_claim_v1.home. Do not apply it; see each reason for the fix.',
      );
      expect(v.reasons).toEqual([expect.stringMatching(/^protected kubernetes_persistent_volume_claim_v1\.home would be deleted in a start, outside a workspace delete/)]);
      expect(v.plannedChanges.delete).toBe(1);
    });

    it('asks for approval when the target version would re-create the migrated deployment under its old type', async () => {
      const ref = await stored(migrateStateByHand(await stateOf(0)));
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.oldDeployment });
      expect(v.verdict).toBe('needs-approval');
      expect(v.summary).toMatch(/^NEEDS APPROVAL: this start destroys and re-creates 1 unprotected resource\(s\): kubernetes_deployment_v1\.main\[0\]/);
      expect(v.reasons).toEqual([expect.stringContaining('kubernetes_deployment_v1.main[0] -> kubernetes_deployment.main[0]')]);
    });

    it('denies the same re-creation when the target version marks that deployment # wsmigrate:protect: a protected destroy, not a question', async () => {
      const ref = await stored(migrateStateByHand(await stateOf(0)));
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.oldDeploymentProtected });
      expect(v.verdict).toBe('deny');
      expect(v.summary).toBe('DENY: this start would destroy 1 protected resource(s): kubernetes_deployment_v1.main[0]. Do not apply it; see each reason for the fix.');
    });

    it('a template source that could not be read once is read again on the next try, not kept as a failure for the version', async () => {
      const sources = cachedTemplateSourceLoader(coder);
      let fail = true;
      const flaky: LoadTemplateSource = async (versionId, subject) => {
        if (fail) {
          fail = false;
          throw new Error('Coder answered 503');
        }
        return sources(versionId, subject);
      };
      const verify = makeVerifyMigration({ coder, blobs, notifier: { notify: async () => undefined } }, flaky);
      const input = { subject: 'alice/dev', migratedRef: await stored(migrateStateByHand(await stateOf(0))), targetVersionId: versions.v1 };
      await expect(verify(input)).rejects.toThrow('Coder answered 503');
      await expect(verify(input)).resolves.toMatchObject({ verdict: 'allow' });
    });

    it('denies a state the rewrite left deprecated types in, naming each one, whatever the guard says', async () => {
      const ref = await stored(await stateOf(0));
      const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: ref, targetVersionId: versions.v1 });
      expect(v.verdict).toBe('deny');
      expect(v.leftovers).toEqual(['kubernetes_persistent_volume_claim.home', 'kubernetes_deployment.main[0]']);
      expect(v.summary).toBe('2 deprecated instance(s) left after the rewrite');
      expect(v.reasons.slice(0, 2)).toEqual([
        'kubernetes_persistent_volume_claim.home still has a deprecated type after the rewrite',
        'kubernetes_deployment.main[0] still has a deprecated type after the rewrite',
      ]);
    });
  });

  it('verifyMigration denies a leftover deprecated type even where the guard alone would only ask for approval', async () => {
    // The PVC migrated, the deployment not: the guard sees an unprotected type-rename (approval), the leftover check a deny.
    const half = JSON.parse(await stateOf(0)) as { resources: { type: string }[] };
    for (const r of half.resources) if (r.type === 'kubernetes_persistent_volume_claim') r.type = 'kubernetes_persistent_volume_claim_v1';
    const v = await acts().verifyMigration({ subject: 'alice/dev', migratedRef: await stored(JSON.stringify(half)), targetVersionId: versions.v1 });
    expect(v.verdict).toBe('deny');
    expect(v.leftovers).toEqual(['kubernetes_deployment.main[0]']);
    expect(v.summary).toBe('1 deprecated instance(s) left after the rewrite');
  });

  describe('postBuildCheck: after a start, every PVC of the backup is there with its uid', () => {
    async function migrateAndStart(wsIndex: number, versionId: string) {
      const ws = sim.workspaces()[wsIndex];
      const buildId = await latestBuildId(sim, ws.id);
      const migrated = migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text);
      expect((await putState(sim, buildId, migrated)).status).toBe(204);
      const uid = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
      const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: versionId });
      return { ws, backupRef: await stored(migrated), build, uid };
    }

    it('passes a start on the _v1 version that kept the PVC, counting it', async () => {
      const { ws, backupRef, build, uid } = await migrateAndStart(1, versions.v1);
      expect(build.job.status).toBe('succeeded');
      const check = await acts().postBuildCheck({ subject: 'bob/dev', buildId: build.id, backupRef });
      expect(check).toEqual({ stateSha256: expect.stringMatching(/^[0-9a-f]{64}$/), persistentChecked: 1, warnings: [] });
      expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
      // Inside a combined step whose build watch kept no ended build, the check reads the logs itself: the same answer.
      await expect(acts().postBuildCheck({ subject: 'bob/dev', buildId: build.id, backupRef }, {})).resolves.toEqual(check);
    });

    it('passes a start whose log mentions destroying a volume while every uid holds, with a warning counting the lines', async () => {
      const { backupRef, build } = await migrateAndStart(1, versions.v1);
      // The same Coder, but the build's log carries two lines about the home volume being destroyed (and one unrelated).
      const logs = async (id: string) => [
        ...(await coder.workspaceBuildLogs(id)),
        { output: 'kubernetes_persistent_volume_claim_v1.home: Destroying... [id=coder/home]' },
        { output: '  # kubernetes_persistent_volume_claim_v1.home must be replaced' },
        { output: 'kubernetes_deployment_v1.main[0]: Destroying... [id=coder/main]' },
      ];
      const noisy = new Proxy(coder, {
        get: (target, key) => {
          if (key === 'workspaceBuildLogs') return logs;
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as CoderClient;
      const check = await stepsOf({ coder: noisy, blobs, notifier: { notify: async () => undefined } }, STEPS).postBuildCheck({ subject: 'bob/dev', buildId: build.id, backupRef });
      expect(check.warnings).toEqual(['the build log mentions destroying a persistent volume 2 time(s); uids are unchanged']);
      expect(check.persistentChecked).toBe(1);
    });

    it('names every persistent object a start lost, one after another', async () => {
      const { backupRef, build } = await migrateAndStart(1, versions.v1);
      // The backup held two volumes more than the build's state does now.
      const backup = JSON.parse((await blobs.get(backupRef)).toString('utf8')) as { resources: unknown[] };
      for (const name of ['data', 'cache']) {
        backup.resources.push({ mode: 'managed', type: 'kubernetes_persistent_volume_claim_v1', name, instances: [{ attributes: { id: `coder/${name}`, metadata: [{ uid: `${name}-uid` }] } }] });
      }
      await expect(acts().postBuildCheck({ subject: 'bob/dev', buildId: build.id, backupRef: await stored(JSON.stringify(backup)) })).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        message: expect.stringContaining(`in build ${build.id}: kubernetes_persistent_volume_claim_v1.data missing; kubernetes_persistent_volume_claim_v1.cache missing. Restore`),
      });
    });

    it('refuses a start that destroyed the PVC, naming it and telling what to do', async () => {
      const { backupRef, build } = await migrateAndStart(2, versions.noPvc);
      expect(build.job.status).toBe('succeeded');
      expect(sim.cluster.pvcLosses().map((l) => l.buildId)).toContain(build.id);
      await expect(acts().postBuildCheck({ subject: 'carol/dev', buildId: build.id, backupRef })).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        nonRetryable: true,
        message: `post-build check: carol/dev: persistent data lost in build ${build.id}: kubernetes_persistent_volume_claim_v1.home missing. Restore the volume from your storage backups; the state backup is kept.`,
        // Missing from the state is not replaced: the object may still be there, so the compensation restores.
        details: [{ replaced: [] }],
      });
    });

    it('refuses a start that re-created the PVC under another uid, showing both uids', async () => {
      // A downgrade built by hand (wsmigrate refuses it): the migrated state on the pre-migration version.
      const { backupRef, build, uid } = await migrateAndStart(3, sim.template.originalVersionId);
      const now = sim.cluster.pvc('coder', homePvcName(sim.workspaces()[3].id))?.uid;
      expect(now).toBeDefined();
      expect(now).not.toBe(uid);
      await expect(acts().postBuildCheck({ subject: 'dave/dev', buildId: build.id, backupRef })).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        message: expect.stringContaining(`kubernetes_persistent_volume_claim_v1.home replaced (uid ${uid} -> ${now})`),
        // The combined build step hands these to the build watch as destroyed: needs-attention at once, no restore
        // of a state that names an object no longer in the cluster (combined-steps.ts, replacedByBuild).
        details: [{ replaced: [`kubernetes_persistent_volume_claim_v1.home (replaced: uid ${uid} -> ${now})`] }],
      });
    });
  });

  it('postBuildCheck refuses a start that kept the PVC but left a deprecated type, naming it', async () => {
    const ws = sim.workspaces()[1];
    const buildId = await latestBuildId(sim, ws.id);
    const before = (await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text;
    const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: versions.oldDeployment });
    expect(build.job.status).toBe('succeeded');
    await expect(acts().postBuildCheck({ subject: 'bob/dev', buildId: build.id, backupRef: await stored(before) })).rejects.toMatchObject({
      type: 'WsmigrateStateConflict',
      message: 'post-build check: bob/dev: kubernetes_deployment.main[0] still has a deprecated type after the build',
    });
  });

  describe('checkProtectedKept: after a recovery start, every protected object of the good state is kept', () => {
    it('passes when the agent marked protected and the PVC keep their ids, and names each one checked', async () => {
      const ws = sim.workspaces()[4];
      const buildId = await latestBuildId(sim, ws.id);
      const good = migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text);
      expect((await putState(sim, buildId, good)).status).toBe(204);
      const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: versions.protectedAgent });
      const checked = await acts().checkProtectedKept({ subject: 'erin/dev', buildId: build.id, referenceRef: await stored(good), targetVersionId: versions.protectedAgent });
      expect(checked.checked.map((c) => c.address).sort()).toEqual(['coder_agent.main', 'kubernetes_persistent_volume_claim_v1.home']);
      expect(checked.checked.find((c) => c.address === 'kubernetes_persistent_volume_claim_v1.home')?.uid).toBe(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid);
    });

    it('refuses a start that re-created an annotated object without a uid (the protected agent), naming its old and new id', async () => {
      const ws = sim.workspaces()[4];
      const buildId = await latestBuildId(sim, ws.id);
      const state = JSON.parse(migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text)) as { resources: { type: string; instances: { attributes: { id?: string } }[] }[] };
      const agent = state.resources.find((r) => r.type === 'coder_agent')!.instances[0].attributes;
      const before = agent.id;
      // The good state knew the agent under another id: the start's agent is another object.
      agent.id = 'agent-from-the-good-state';
      const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: versions.protectedAgent });
      await expect(
        acts().checkProtectedKept({ subject: 'erin/dev', buildId: build.id, referenceRef: await stored(JSON.stringify(state)), targetVersionId: versions.protectedAgent }),
      ).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        message: expect.stringContaining(`after build ${build.id}: coder_agent.main has id ${before ?? '(none)'}, not agent-from-the-good-state.`),
      });
    });

    it('refuses a state that still holds the PVC and the agent but without their uid and id (a partial state), saying (none)', async () => {
      const ws = sim.workspaces()[4];
      const buildId = await latestBuildId(sim, ws.id);
      const kept = (await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text;
      const partial = JSON.parse(kept) as { resources: { type: string; instances: { attributes: { id?: string; metadata?: { uid?: string }[] } }[] }[] };
      const pvc = partial.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim_v1')!.instances[0].attributes;
      const agent = partial.resources.find((r) => r.type === 'coder_agent')!.instances[0].attributes;
      const [uid, id] = [pvc.metadata![0].uid, agent.id];
      delete pvc.metadata![0].uid;
      delete agent.id;
      expect((await putState(sim, buildId, JSON.stringify(partial))).status).toBe(204);
      await expect(acts().checkProtectedKept({ subject: 'erin/dev', buildId, referenceRef: await stored(kept), targetVersionId: versions.protectedAgent })).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        message: expect.stringContaining(`kubernetes_persistent_volume_claim_v1.home has uid (none), not ${uid}`),
      });
      await expect(acts().checkProtectedKept({ subject: 'erin/dev', buildId, referenceRef: await stored(kept), targetVersionId: versions.protectedAgent })).rejects.toThrow(`coder_agent.main has id (none), not ${id}`);
      expect((await putState(sim, buildId, kept)).status).toBe(204);
    });

    it('refuses a start that forgot the PVC, naming it', async () => {
      const ws = sim.workspaces()[5];
      const buildId = await latestBuildId(sim, ws.id);
      const good = migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text);
      expect((await putState(sim, buildId, good)).status).toBe(204);
      const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: versions.noPvc });
      await expect(
        acts().checkProtectedKept({ subject: 'frank/dev', buildId: build.id, referenceRef: await stored(good), targetVersionId: versions.v1 }),
      ).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        nonRetryable: true,
        message: `protected-object check: frank/dev: after build ${build.id}: kubernetes_persistent_volume_claim_v1.home is missing. Restore the volume from your storage backups; the state backups are kept.`,
      });
    });

    it('refuses a start that left one deprecated type (the PVC moved back by hand), though nothing was lost', async () => {
      const ws = sim.workspaces()[6];
      const buildId = await latestBuildId(sim, ws.id);
      const oldPvc = migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text).replace(
        /"type": ?"kubernetes_persistent_volume_claim_v1"/,
        '"type": "kubernetes_persistent_volume_claim"',
      );
      expect((await putState(sim, buildId, oldPvc)).status).toBe(204);
      await expect(acts().checkProtectedKept({ subject: 'gina/dev', buildId, referenceRef: await stored(oldPvc), targetVersionId: versions.v1 })).rejects.toMatchObject({
        type: 'WsmigrateStateConflict',
        message: 'protected-object check: gina/dev: kubernetes_persistent_volume_claim.home still deprecated after the start',
        nonRetryable: true,
      });
    });

    it('refuses a start that re-created the PVC under another uid, and one that left a deprecated type', async () => {
      const ws = sim.workspaces()[0];
      const buildId = await latestBuildId(sim, ws.id);
      const good = migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text);
      expect((await putState(sim, buildId, good)).status).toBe(204);
      const uid = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
      const build = await startBuild(sim, ws.id, { transition: 'start', template_version_id: sim.template.originalVersionId });
      const now = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
      expect(now).not.toBe(uid);
      await expect(acts().checkProtectedKept({ subject: 'alice/dev', buildId: build.id, referenceRef: await stored(good), targetVersionId: versions.v1 })).rejects.toMatchObject({
        type: 'WsmigrateDataLoss',
        message: expect.stringContaining(`kubernetes_persistent_volume_claim_v1.home has uid ${now}, not ${uid}`),
        nonRetryable: true,
      });
      // Against a reference that is the old state itself, nothing is lost, but the state is not migrated.
      const oldState = (await api(sim, 'GET', `/workspacebuilds/${build.id}/state`)).text;
      await expect(acts().checkProtectedKept({ subject: 'alice/dev', buildId: build.id, referenceRef: await stored(oldState), targetVersionId: versions.v1 })).rejects.toMatchObject({
        type: 'WsmigrateStateConflict',
        message: 'protected-object check: alice/dev: kubernetes_persistent_volume_claim.home, kubernetes_deployment.main[0] still deprecated after the start',
        // Final: the start already ran on this state; trying the check again reads the same state.
        nonRetryable: true,
      });
    });
  });
});
