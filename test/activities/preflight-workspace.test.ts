import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { makeWiredPreflight } from './fixtures/preflight-step';
import { stepsOf } from './fixtures/steps';
import type { WorkspacePreflightInput } from '../../src/activities/preflight-workspace';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { preflightWorkspace: makeWiredPreflight };

/**
 * preflightWorkspace: every check before anything changes, met with a Coder and a workspace that
 * must stop the migration. Each refusal names the workspace and what to do, and no build is made.
 */

const CRON_JOB = {
  mode: 'managed',
  type: 'kubernetes_cron_job',
  name: 'backup',
  provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
  instances: [{ schema_version: 1, attributes: { id: 'coder/backup', metadata: [{ name: 'backup', namespace: 'coder', uid: 'cj-1' }] } }],
};

describe('preflightWorkspace: reads only, and refuses what must not be migrated', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  let broken: string;
  let otherTemplatesVersion: string;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 10, buildLatencyMs: 5, provisioners: 1, moreTemplates: [{ name: 'team-tools', versioned: true }] });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-preflight-'));
    blobs = createFileBlobStore({ dir });
    // Promoted, as 'wsmigrate migrate template' does: a migration onto an inactive version is its own test below.
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true })).id;
    broken = (await pushTemplateVersion(sim, fixtureSource('template-broken'))).id;
    otherTemplatesVersion = sim.templates().find((t) => t.name === 'team-tools')!.activeVersionId;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const coder = (s: CoderSimulator = sim, token = s.token) => new CoderClient({ url: s.url, token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  const acts = (s?: CoderSimulator, token?: string) => stepsOf({ coder: coder(s, token), blobs, notifier: { notify: async () => undefined } }, STEPS);
  const ws = (i: number) => sim.workspaces()[i];
  const inputFor = (i: number, over: Partial<WorkspacePreflightInput> = {}, s: CoderSimulator = sim): WorkspacePreflightInput => ({
    owner: s.workspaces()[i].owner,
    workspace: s.workspaces()[i].name,
    template: s.template.name,
    targetVersionId: v1,
    strategy: 'rename',
    ...over,
  });
  const buildCount = async (i: number) => (await coder().workspace(ws(i).id)).latest_build.build_number;
  async function failure(p: Promise<unknown>): Promise<{ type: string; nonRetryable: boolean; message: string }> {
    return p.then(
      () => {
        throw new Error('preflight passed where it must refuse');
      },
      (e: unknown) => e as { type: string; nonRetryable: boolean; message: string },
    );
  }

  it('passes a running workspace on the seeded version, with what the migration needs to return to it', async () => {
    const w = ws(0);
    const state = await api(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, w.id)}/state`);
    const latest = (await coder().workspace(w.id)).latest_build;
    const pf = await acts().preflightWorkspace(inputFor(0));
    expect(pf).toEqual({
      workspaceId: w.id,
      subject: `${w.owner}/${w.name}`,
      coderVersion: 'v2.31.7+sim0001',
      updateRestartStopsFirst: true,
      latestBuild: { id: latest.id, buildNumber: latest.build_number, transition: 'start', templateVersionId: sim.template.originalVersionId },
      prior: { transition: 'start', templateVersionId: sim.template.originalVersionId },
      targetVersionName: expect.any(String),
      stateSha256: createHash('sha256').update(Buffer.from(state.text)).digest('hex'),
      renameable: 2,
      needsImport: [],
      alreadyMigrated: false,
      onTargetVersion: false,
    });
    expect(pf.targetVersionName).toBe((await coder().templateVersion(v1)).name);
  });

  it('a stopped workspace returns to stopped if the migration is undone; a migrated one on the target says so', async () => {
    await startBuild(sim, ws(1).id, { transition: 'stop' });
    const stopped = await acts().preflightWorkspace(inputFor(1));
    expect(stopped.prior).toEqual({ transition: 'stop', templateVersionId: sim.template.originalVersionId });
    expect(stopped.latestBuild.transition).toBe('stop');

    const buildId = await latestBuildId(sim, ws(2).id);
    expect((await putState(sim, buildId, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text))).status).toBe(204);
    await startBuild(sim, ws(2).id, { transition: 'start', template_version_id: v1 });
    const migrated = await acts().preflightWorkspace(inputFor(2));
    expect(migrated).toMatchObject({ alreadyMigrated: true, onTargetVersion: true, renameable: 0, prior: { transition: 'start', templateVersionId: v1 } });
  });

  it("a workspace with nothing left to rename is not refused over the target's variable values: no build of the migration will run", async () => {
    // ws(2) was migrated onto v1 above; the target is another _v1 version pushed with another namespace.
    const c = coder();
    const file = await c.uploadFile(await packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]));
    const other = (await c.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, user_variable_values: [{ name: 'namespace', value: 'team-b' }] })).id;
    expect((await c.waitForTemplateVersion(other)).job.status).toBe('succeeded');
    // `other` is not the active version: asked for by name, as this is about its variables.
    expect(await acts().preflightWorkspace(inputFor(2, { targetVersionId: other, allowInactiveVersion: true }))).toMatchObject({ alreadyMigrated: true, renameable: 0, onTargetVersion: false });
  });

  it('a start that failed returns to stopped, not to a start that never ran', async () => {
    sim.setFaults({ failBuilds: { workspaceId: ws(3).id, transition: 'start', times: 1 } });
    try {
      const failed = await startBuild(sim, ws(3).id, { transition: 'start' });
      expect(failed.job.status).toBe('failed');
    } finally {
      sim.setFaults(undefined);
    }
    const pf = await acts().preflightWorkspace(inputFor(3));
    expect(pf.latestBuild.transition).toBe('start');
    expect(pf.prior.transition).toBe('stop');
  });

  it('a running dormant workspace is refused (nobody may start it again after the stop), saying how to make it active; stopped, it passes, dormant since when', async () => {
    const dormant = await api<{ dormant_at: string }>(sim, 'PUT', `/workspaces/${ws(8).id}/dormant`, { json: { dormant: true } });
    expect(dormant.status).toBe(200);
    const refused = await failure(acts().preflightWorkspace(inputFor(8)));
    // Its own type: a fleet counts it skipped (who must act), not failed.
    expect(refused).toMatchObject({ type: FailureType.dormant, nonRetryable: true });
    expect(refused.message).toBe(
      `preflight refused for ${ws(8).owner}/${ws(8).name}: the workspace is running but dormant (since ${dormant.body.dormant_at}): Coder lets nobody start a dormant workspace, so the migration could not start it again; nothing was stopped: ` +
        `its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws(8).id}/dormant {"dormant": false}), then run the migration again (or stop it and migrate it stopped)`,
    );
    await startBuild(sim, ws(8).id, { transition: 'stop' });
    expect(await acts().preflightWorkspace(inputFor(8))).toMatchObject({
      prior: { transition: 'stop' },
      dormantSince: dormant.body.dormant_at,
      // What zero-touch says of a stopped dormant workspace it cannot start: who makes it active.
      dormantAction: `its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws(8).id}/dormant {"dormant": false})`,
    });
  });

  it("a running dormant workspace of a suspended owner: the refusal names an admin, not the owner, and when Coder deletes it", async () => {
    const other = await startSimulator({ workspaces: 1, buildLatencyMs: 5, seed: 17, dormancy: { timeTilDormantAutodeleteMs: 7 * 86_400_000 } });
    try {
      const target = (await pushTemplateVersion(other, fixtureSource('template-v1'), { promote: true })).id;
      const w = other.workspaces()[0]!;
      const dormant = await api<{ dormant_at: string; deleting_at: string }>(other, 'PUT', `/workspaces/${w.id}/dormant`, { json: { dormant: true } });
      expect((await api(other, 'PUT', `/users/${w.owner}/status/suspend`)).status).toBe(200);
      const refused = await failure(acts(other).preflightWorkspace(inputFor(0, { targetVersionId: target }, other)));
      expect(refused).toMatchObject({ type: FailureType.dormant, nonRetryable: true });
      expect(refused.message).toContain(
        `nothing was stopped: a Coder admin makes it active first, not its owner: ${w.owner} is suspended and cannot sign in (its page in the dashboard, or PUT /api/v2/workspaces/${w.id}/dormant {"dormant": false}), then run the migration again`,
      );
      expect(refused.message).toMatch(new RegExp(`\\. Coder deletes it, home PVC included, at ${dormant.body.deleting_at.replace(/\./g, '\\.')} \\(the template's time_til_dormant_autodelete\\) unless it is made active before$`));
      expect(refused.message).not.toContain('its owner or an admin');
      // Stopped, it passes; who must act names an admin alone, and when Coder deletes it.
      await startBuild(other, w.id, { transition: 'stop' });
      const stopped = await acts(other).preflightWorkspace(inputFor(0, { targetVersionId: target }, other));
      expect(stopped.dormantAction).toMatch(new RegExp(`^a Coder admin makes it active first, not its owner: ${w.owner} is suspended and cannot sign in .*\\. Coder deletes it, home PVC included, at ${dormant.body.deleting_at.replace(/\./g, '\\.')} `));
    } finally {
      await other.close();
    }
  });

  it('a build still running is busy (retried), not refused, naming the build', async () => {
    sim.setDaemonOffline('sim-provisioner-1');
    try {
      const queued = await api<{ build_number: number; initiator_name: string }>(sim, 'POST', `/workspaces/${ws(4).id}/builds`, { json: { transition: 'stop' } });
      expect(queued.status).toBe(201);
      const err = await failure(acts().preflightWorkspace(inputFor(4)));
      expect(err.type).toBe(FailureType.busy);
      expect(err.nonRetryable).toBe(false);
      // Whose build it waits on: its initiator.
      expect(queued.body.initiator_name).toBeTruthy();
      expect(err.message).toBe(`preflight: ${ws(4).owner}/${ws(4).name} has build #${queued.body.build_number} (stop by ${queued.body.initiator_name}) pending; waiting for it to finish`);
    } finally {
      sim.setDaemonOffline('sim-provisioner-1', false);
    }
  });

  it("a build of Coder's own (autostart) is named by its reason, not by the owner Coder records as its initiator", async () => {
    const own = await startSimulator({ workspaces: 1, buildLatencyMs: 5, provisioners: 1 });
    try {
      const v = (await pushTemplateVersion(own, fixtureSource('template-v1'), { promote: true })).id;
      const w = own.workspaces()[0];
      await startBuild(own, w.id, { transition: 'stop' });
      expect((await api(own, 'PUT', `/workspaces/${w.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * 1-5' } })).status).toBe(204);
      own.setDaemonOffline('sim-provisioner-1');
      expect(own.lifecycleTick(new Date(), { force: true, workspaceIds: [w.id] }).transitions).toEqual({ [w.id]: 'start' });
      const latest = (await coder(own).workspace(w.id)).latest_build;
      expect(latest).toMatchObject({ reason: 'autostart', initiator_name: w.owner, job: { status: 'pending' } });
      const err = await failure(acts(own).preflightWorkspace(inputFor(0, { targetVersionId: v }, own)));
      expect(err.message).toBe(`preflight: ${w.owner}/${w.name} has build #${latest.build_number} (start by Coder's autostart) pending; waiting for it to finish`);
    } finally {
      await own.close();
    }
  });

  it('a build running, and one being canceled, is busy too: its job has yet to write the state', async () => {
    // Builds that take a while, so the test sees each phase; it waits on the status, not on time.
    const slow = await startSimulator({ workspaces: 1, buildLatencyMs: 1500 });
    try {
      const v = (await pushTemplateVersion(slow, fixtureSource('template-v1'), { promote: true })).id;
      const c = coder(slow);
      const w = slow.workspaces()[0];
      const queued = await api<{ id: string; build_number: number; initiator_name: string }>(slow, 'POST', `/workspaces/${w.id}/builds`, { json: { transition: 'stop' } });
      expect(queued.status).toBe(201);
      const statusIs = async (status: string) => {
        while ((await c.workspace(w.id)).latest_build.job.status !== status) await new Promise((r) => setTimeout(r, 5));
      };
      await statusIs('running');
      const running = await failure(acts(slow).preflightWorkspace(inputFor(0, { targetVersionId: v }, slow)));
      expect(running).toMatchObject({ type: FailureType.busy, message: `preflight: ${w.owner}/${w.name} has build #${queued.body.build_number} (stop by ${queued.body.initiator_name}) running; waiting for it to finish` });
      expect((await api(slow, 'PATCH', `/workspacebuilds/${queued.body.id}/cancel`)).status).toBe(200);
      await statusIs('canceling');
      const canceling = await failure(acts(slow).preflightWorkspace(inputFor(0, { targetVersionId: v }, slow)));
      expect(canceling).toMatchObject({ type: FailureType.busy, message: expect.stringContaining(`(stop by ${queued.body.initiator_name}) canceling; waiting for it to finish`) });
    } finally {
      await slow.close();
    }
  });

  describe('refusals', () => {
    it('a template name that is not the workspace\'s is a usage error naming both', async () => {
      const err = await failure(acts().preflightWorkspace(inputFor(0, { template: 'k8s-prod' })));
      expect(err).toMatchObject({ type: FailureType.unknownName, nonRetryable: true });
      expect(err.message).toBe(`preflight refused for ${ws(0).owner}/${ws(0).name}: the workspace uses template '${sim.template.name}', not 'k8s-prod'; check the template name`);
    });

    it('a token that may not update the template is refused before anything else is read', async () => {
      const err = await failure(acts(sim, sim.tokenOf(ws(0).owner)).preflightWorkspace(inputFor(0)));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(new RegExp(`^preflight refused for ${ws(0).owner}/${ws(0).name}: `));
      expect(err.message).toContain('update the template');
      expect(err.message).toMatch(new RegExp(`Use the token of an Owner, or of an Organization Admin of coder, for template ${sim.template.name}`));
    });

    it('a target version of another template', async () => {
      const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: otherTemplatesVersion })));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(`preflight refused for ${ws(0).owner}/${ws(0).name}: template version ${otherTemplatesVersion} belongs to another template; pass the version migrateTemplate created`);
    });

    it('a target version whose import failed', async () => {
      const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: broken })));
      expect(err.type).toBe(FailureType.refused);
      expect(err.message).toMatch(new RegExp(`^preflight refused for ${ws(0).owner}/${ws(0).name}: template version \\S+ did not import successfully \\(job failed\\); fix the template first$`));
    });

    it('a target version still importing (no daemon has taken its job yet) is refused, not migrated onto', async () => {
      sim.setDaemonOffline('sim-provisioner-1', true);
      try {
        const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: await packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]), contentType: 'application/x-tar' });
        const created = await api<{ id: string; name: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
          json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform' },
        });
        expect(created.status).toBe(201);
        const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: created.body.id })));
        expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
        expect(err.message).toBe(`preflight refused for ${ws(0).owner}/${ws(0).name}: template version ${created.body.name} did not import successfully (job pending); fix the template first`);
      } finally {
        sim.setDaemonOffline('sim-provisioner-1', false);
      }
    });

    it('a target version that still declares one deprecated type (its deployment) is not a migrated version either', async () => {
      const half = (await pushTemplateVersion(sim, fixtureSource('template-v1').replaceAll('kubernetes_deployment_v1', 'kubernetes_deployment'), { name: 'v1-deployment-old' })).id;
      const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: half })));
      expect(err.type).toBe(FailureType.refused);
      expect(err.message).toMatch(/template version v1-deployment-old still declares kubernetes_deployment\.main \(main\.tf:\d+\) with the deprecated type, so it is not a migrated version/);
    });

    it('a target version that still declares the deprecated types is not a migrated version', async () => {
      const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: sim.template.originalVersionId })));
      expect(err.type).toBe(FailureType.refused);
      expect(err.message).toMatch(
        /still declares kubernetes_persistent_volume_claim\.home \(main\.tf:\d+\), kubernetes_deployment\.main \(main\.tf:\d+\) with the deprecated type, so it is not a migrated version; pass --version the id 'wsmigrate migrate template' printed/,
      );
    });

    it('a workspace whose delete failed is not migrated', async () => {
      sim.setFaults({ failBuilds: { workspaceId: ws(5).id, transition: 'delete', times: 1 } });
      try {
        expect((await startBuild(sim, ws(5).id, { transition: 'delete' })).job.status).toBe('failed');
      } finally {
        sim.setFaults(undefined);
      }
      const err = await failure(acts().preflightWorkspace(inputFor(5)));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(`preflight refused for ${ws(5).owner}/${ws(5).name}: the workspace is deleted or being deleted; nothing to migrate`);
    });

    it('a DIFFERENT type under the rename strategy names it and the way out; the import strategy passes it', async () => {
      const buildId = await latestBuildId(sim, ws(6).id);
      const state = JSON.parse((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text) as { resources: unknown[] };
      state.resources.push(CRON_JOB);
      expect((await putState(sim, buildId, JSON.stringify(state))).status).toBe(204);
      const err = await failure(acts().preflightWorkspace(inputFor(6)));
      expect(err.type).toBe(FailureType.refused);
      expect(err.message).toBe(
        `preflight refused for ${ws(6).owner}/${ws(6).name}: kubernetes_cron_job.backup is a type whose _v1 twin is another implementation, so a state rename would corrupt it; run with strategy "import" (needs cluster access) or migrate these by hand`,
      );
      state.resources.push({ ...CRON_JOB, name: 'nightly' });
      expect((await putState(sim, buildId, JSON.stringify(state))).status).toBe(204);
      expect((await failure(acts().preflightWorkspace(inputFor(6)))).message).toContain('kubernetes_cron_job.backup, kubernetes_cron_job.nightly are types whose _v1 twin');
      const pf = await acts().preflightWorkspace(inputFor(6, { strategy: 'import' }));
      expect(pf.needsImport).toEqual(['kubernetes_cron_job.backup', 'kubernetes_cron_job.nightly']);
      expect(pf.renameable).toBe(2);
    });

    it('a state that is not a v4 state, naming the build', async () => {
      const buildId = await latestBuildId(sim, ws(7).id);
      expect((await putState(sim, buildId, JSON.stringify({ version: 3, serial: 1, resources: [] }))).status).toBe(204);
      const before = await buildCount(7);
      const err = await failure(acts().preflightWorkspace(inputFor(7)));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(new RegExp(`^preflight refused for ${ws(7).owner}/${ws(7).name}: the state of build #${before} cannot be migrated: `));
      expect(await buildCount(7)).toBe(before);
    });
  });

  describe("a target that is not the template's active version", () => {
    // Another _v1 version, pushed and not promoted (as 'migrate template --no-promote' leaves one).
    let inactive: string;
    beforeAll(async () => {
      inactive = (await pushTemplateVersion(sim, fixtureSource('template-v1'), { name: 'v1-not-promoted' })).id;
    });

    it('is refused before anything is built, naming the Update button, the PVC, the promote and the flag', async () => {
      const before = (await coder().workspace(ws(0).id)).latest_build;
      const err = await failure(acts().preflightWorkspace(inputFor(0, { targetVersionId: inactive })));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(
        `preflight refused for ${ws(0).owner}/${ws(0).name}: template version v1-not-promoted (${inactive}) is not the active version of template ${sim.template.name} (${v1} is). ` +
          // The active version here is a migrated one too: Update loses nothing, and the words say so.
          `After the migration Coder shows the workspace as outdated, and one click of its owner on Update moves it onto the active version, which declares the _v1 types too: ` +
          `no volume is lost, but it is not the version you chose. Nothing was stopped. ` +
          `Promote it first ('coder templates versions promote --template ${sim.template.name} --template-version v1-not-promoted', or Promote on the template's Versions page), ` +
          `or pass the version 'wsmigrate migrate template' promotes (without --no-promote) or the active version ${v1}; ` +
          `or pass --allow-inactive-version if you mean to migrate onto it now and promote it before anyone presses Update`,
      );
      // Nothing was built: the latest build is the one before, still running on the version it ran.
      const after = (await coder().workspace(ws(0).id)).latest_build;
      expect({ id: after.id, number: after.build_number, transition: after.transition, version: after.template_version_id }).toEqual({
        id: before.id,
        number: before.build_number,
        transition: 'start',
        version: sim.template.originalVersionId,
      });
    });

    it('asked for by name, it passes and says the workspace will be outdated and what its owner\'s Update would destroy', async () => {
      const pf = await acts().preflightWorkspace(inputFor(0, { targetVersionId: inactive, allowInactiveVersion: true }));
      expect(pf).toMatchObject({ renameable: 2, onTargetVersion: false, targetVersionName: 'v1-not-promoted' });
      expect(pf.inactiveTarget).toBe(
        `migrating ${ws(0).owner}/${ws(0).name} onto template version v1-not-promoted (${inactive}) leaves it outdated: that is not the active version of template ${sim.template.name} (${v1} is), ` +
          `and its owner's Update moves it onto the active version (a migrated one too: no volume is lost). ` +
          `Promote v1-not-promoted before anyone presses Update ('coder templates versions promote --template ${sim.template.name} --template-version v1-not-promoted'); ` +
          `without --allow-inactive-version a migration onto it is refused`,
      );
    });

    it('with the old version still active, the refusal and the warning name the PVC Update would destroy', async () => {
      const old = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
      try {
        const target = (await pushTemplateVersion(old, fixtureSource('template-v1'), { name: 'v1-candidate' })).id;
        const err = await failure(acts(old).preflightWorkspace(inputFor(0, { targetVersionId: target }, old)));
        expect(err.message).toContain(
          `is not the active version of template ${old.template.name} (${old.template.originalVersionId} is). After the migration Coder shows the workspace as outdated, ` +
            'and one click of its owner on Update builds the active, old version on the migrated _v1 state: Terraform destroys the home PVC and creates an empty one. Nothing was stopped.',
        );
        expect(err.message).toContain("or pass the version 'wsmigrate migrate template' promotes (without --no-promote); or pass --allow-inactive-version");
        const pf = await acts(old).preflightWorkspace(inputFor(0, { targetVersionId: target, allowInactiveVersion: true }, old));
        expect(pf.inactiveTarget).toContain("and its owner's Update builds the active, old version on the _v1 state and destroys the home PVC. ");
      } finally {
        await old.close();
      }
    });

    it('allowed, still refused for a workspace Coder would start on the active version (automatic updates "always"), also when its state holds one deprecated instance', async () => {
      const i = 9;
      const buildId = await latestBuildId(sim, ws(i).id);
      const state = JSON.parse((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text) as { resources: { type: string }[] };
      state.resources = state.resources.filter((r) => r.type !== 'kubernetes_deployment');
      expect(state.resources.filter((r) => r.type.startsWith('kubernetes_'))).toHaveLength(1);
      expect((await putState(sim, buildId, JSON.stringify(state))).status).toBe(204);
      expect((await api(sim, 'PUT', `/workspaces/${ws(i).id}/autoupdates`, { token: sim.tokenOf(ws(i).owner), json: { automatic_updates: 'always' } })).status).toBe(204);
      const err = await failure(acts().preflightWorkspace(inputFor(i, { targetVersionId: inactive, allowInactiveVersion: true })));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toContain(`the workspace has automatic updates "always", so Coder starts it (its autostart, and its owner's start) on the template's active version ${v1}, not on the target version ${inactive}`);
    });

    it('the active version as target carries no such warning', async () => {
      expect((await acts().preflightWorkspace(inputFor(0))).inactiveTarget).toBeUndefined();
    });

    it('a workspace already on it with a migrated state is not refused: the run moves it onto no version it is not on', async () => {
      // ws(2) holds a migrated state (above); built onto the inactive version, as an earlier allowed run left it.
      expect((await startBuild(sim, ws(2).id, { transition: 'start', template_version_id: inactive })).job.status).toBe('succeeded');
      const pf = await acts().preflightWorkspace(inputFor(2, { targetVersionId: inactive }));
      expect(pf).toMatchObject({ alreadyMigrated: true, onTargetVersion: true, renameable: 0 });
      expect(pf.inactiveTarget).toBeUndefined();
    });
  });

  describe('the Coder version', () => {
    async function withVersion<T>(version: string, fn: (s: CoderSimulator) => Promise<T>): Promise<T> {
      const s = await startSimulator({ workspaces: 1, buildLatencyMs: 5, version });
      try {
        return await fn(s);
      } finally {
        await s.close();
      }
    }

    it('a Coder too old to take the state in a build is refused, saying which version is needed', async () => {
      const err = await withVersion('v1.9.0', (s) => failure(acts(s).preflightWorkspace(inputFor(0, {}, s))));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(/^preflight refused for \S+: .*v1\.9\.0/);
    });

    it('a version string that cannot be read is refused, quoting it', async () => {
      const err = await withVersion('nightly-build', (s) => failure(acts(s).preflightWorkspace(inputFor(0, {}, s))));
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toMatch(/^preflight refused for \S+: .*nightly-build/);
    });

    it('before v2.31.1 "Update and restart" does not stop first, and the preflight says so', async () => {
      const pf = await withVersion('v2.30.4', async (s) => {
        const t = (await pushTemplateVersion(s, fixtureSource('template-v1'), { promote: true })).id;
        return acts(s).preflightWorkspace(inputFor(0, { targetVersionId: t }, s));
      });
      expect(pf).toMatchObject({ coderVersion: 'v2.30.4', updateRestartStopsFirst: false });
    });
  });
});
