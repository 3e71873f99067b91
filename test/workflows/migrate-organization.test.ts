import { controlFleet } from '../../src/client/fleet';
import { decide } from '../../src/client/approvals';
import { organizationStatus, organizationStatusText, startOrganizationMigration } from '../../src/client/organization';
import { templateWorkflowId } from '../../src/domain/migration-input';
import type { MigrateOrganizationInput } from '../../src/domain/organization-input';
import type { OrganizationResult } from '../../src/contracts/migrate-organization';
import { childrenStartedAfterUpdate } from '../harness/history';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';
import { organizationExitCode } from '../../src/cli/commands/organization-run';
import { EXIT } from '../../src/cli/io';


/** Approves each template's promote gate as it appears (the canary fleets migrate the templates first). */
async function approveTemplatesAsTheyAsk(env: MigrationEnv, templates: string[], until: () => Promise<boolean>): Promise<void> {
  const approved = new Set<string>();
  await waitFor(async () => {
    for (const t of templates) {
      if (approved.has(t)) continue;
      await decide(env.t.client, templateWorkflowId('coder', t), 'approve', { approver: 'sre' }).then(
        () => approved.add(t),
        () => undefined,
      );
    }
    return until();
  }, 120_000);
}

describe('migrateOrganization: every template of an organization, one canary gate', () => {
  let env: MigrationEnv;
  let gpu: string;
  const tools = 'team-tools';
  beforeAll(async () => {
    gpu = uniqueTaskQueue('gpu');
    env = await createMigrationEnv({ workspaces: 3, moreTemplates: [{ name: gpu, workspaces: 2 }, { name: tools, workspaces: 2, versioned: true }] });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  const input = (): MigrateOrganizationInput => ({
    organization: 'coder',
    allTemplates: true,
    canary: 1,
    concurrency: 1,
    archiveOldVersions: false,
    approval: { policy: 'destructive', approvers: ['sre'] },
  });

  it('migrates the two templates that need it (canaries, one gate, pause and resume, the rest), lists the _v1 one as nothing to do, keeps every PVC uid', async () => {
    const uidsBefore = pvcUids(env);
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    await startOrganizationMigration(env.t.client, input(), { taskQueue: env.taskQueue, workflowId: id });
    const templates = [env.sim.template.name, gpu];
    await approveTemplatesAsTheyAsk(env, templates, async () => (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue');

    const atGate = (await organizationStatus(env.t.client, id)).progress;
    expect(atGate?.stage).toBe('canary-gate');
    expect(atGate?.templates.map((r) => [r.template, r.state, r.summary?.migrated ?? 0]).sort()).toEqual(
      [
        [env.sim.template.name, 'canary-done', 1],
        [gpu, 'canary-done', 1],
        [tools, 'nothing-to-do', 0],
      ].sort(),
    );
    expect(atGate?.pendingApproval?.summary).toMatch(/Canaries of coder: .*1 migrated, 0 not ok.*Continue with the rest of 2 template\(s\)/);
    expect(organizationStatusText(await organizationStatus(env.t.client, id))).toContain(`wsmigrate approve ${id} --approver <you> --gate fleet-continue --plan ${atGate?.pendingApproval?.planHash}`);

    // Paused before the gate is passed: nothing new starts after the approval until resume.
    await controlFleet(env.t.client, id, 'pause', 'sre', 'lunch');
    await decide(env.t.client, id, 'approve', { approver: 'sre' });
    // Not a sleep: once the run has handled the approval, it has started nothing on it.
    const org = env.t.client.workflow.getHandle(id);
    await waitFor(async () => (await childrenStartedAfterUpdate(org, 'approve')) !== undefined, 60_000);
    expect(await childrenStartedAfterUpdate(org, 'approve')).toEqual([]);
    const held = (await organizationStatus(env.t.client, id)).progress;
    expect(held?.phase).toBe('paused');
    expect(held?.templates.filter((r) => r.workflowId && !r.workflowId.endsWith('/canary'))).toEqual([]);
    await controlFleet(env.t.client, id, 'resume', 'sre');

    const handle = env.t.client.workflow.getHandle(id);
    const result = (await handle.result()) as OrganizationResult;
    expect(result.phase).toBe('done');
    expect(result.nothingToDo).toEqual([tools]);
    // Each workspace once: the canaries counted migrated, not again as already migrated by the rest (it said 2).
    expect(result.summary).toMatchObject({ migrated: 5, alreadyMigrated: 0, failed: 0, restored: 0, needsAttention: 0 });
    expect(result.templates.filter((r) => r.state === 'done').map((r) => r.template).sort()).toEqual([...templates].sort());
    expect(result.summary.pvcUidsKept).toBe(5); // one home volume each
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    // The _v1 template was never touched: still on its first version, its workspaces on build 1.
    const toolsWs = env.sim.workspaces().filter((w) => w.name.startsWith(tools));
    for (const w of toolsWs) expect((await env.coder.workspace(w.id)).latest_build.build_number).toBe(1);
  }, 300_000);
});

describe('migrateOrganization: cancel', () => {
  let env: MigrationEnv;
  let gpu: string;
  beforeAll(async () => {
    // Sorted before the seeded template, so it runs first, with enough workspaces for the cancel to land mid-way.
    gpu = uniqueTaskQueue('aaa');
    // One daemon: the test takes it away once the first fleet rolls, so that fleet cannot finish before the cancel lands.
    env = await createMigrationEnv({ workspaces: 2, moreTemplates: [{ name: gpu, workspaces: 5 }], provisioners: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('a cancel during the first template stops its fleet and every template after it; nothing is lost', async () => {
    const uidsBefore = pvcUids(env);
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name, gpu], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    // The first template's gate (gpu's: 'aaa-…' sorts first), two levels down (organization → fleet →
    // template), shows in the run's status with its command.
    const templateRun = templateWorkflowId('coder', gpu);
    await waitFor(async () => organizationStatusText(await organizationStatus(env.t.client, id)).includes(`waits for ${templateRun} at 'template-promote'`), 60_000);
    expect(organizationStatusText(await organizationStatus(env.t.client, id))).toMatch(new RegExp(`waits for ${templateRun} at 'template-promote'.*: wsmigrate approve ${templateRun} --approver <you>`));
    await approveTemplatesAsTheyAsk(env, [env.sim.template.name, gpu], async () => (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue');
    // No daemon from before the rest is approved: the first fleet's pacing holds (nothing can build), so it
    // cannot finish its four before the cancel lands, however slowly this machine polls. Taken away only
    // once 'rolling' showed, its four once all ended in the gap (CI, at load).
    const daemons = env.sim.provisionerDaemons().map((d) => d.name);
    for (const name of daemons) env.sim.setDaemonOffline(name);
    await decide(env.t.client, id, 'approve', { approver: 'sre' });
    await waitFor(async () => (await organizationStatus(env.t.client, id)).progress?.templates.find((r) => r.template === gpu)?.state === 'rolling', 60_000);
    await controlFleet(env.t.client, id, 'cancel', 'sre', 'stop for today');
    for (const name of daemons) env.sim.setDaemonOffline(name, false);
    await expect(env.t.client.workflow.getHandle(id).result()).rejects.toThrow();
    // Cancelled in Temporal too, the run and the template fleets it cancelled; one phase word for all of them.
    const described = await env.t.client.workflow.getHandle(id).describe();
    expect(described.status.name).toBe('CANCELLED');
    expect(described.searchAttributes.WsmigratePhase).toEqual(['cancelled']);
    const s = await organizationStatus(env.t.client, id);
    const result = s.result as OrganizationResult;
    expect(s.phase).toBe('cancelled');
    expect(result.phase).toBe('cancelled');
    const byTemplate = Object.fromEntries(result.templates.map((r) => [r.template, r.state]));
    expect(byTemplate).toEqual({ [gpu]: 'cancelled', [env.sim.template.name]: 'cancelled' });
    // Who cancelled it and why, as a template fleet's summary says (it used to say only 'cancelled').
    expect(result.cancelledBy).toEqual({ by: 'sre', reason: 'stop for today' });
    expect(organizationStatusText(s)).toMatch(new RegExp(`^${id}: cancelled by sre \\(stop for today\\)\n`));
    expect(result.summary).toMatchObject({ failed: 0, restored: 0, needsAttention: 0 });
    // The canaries (one each) and what the first fleet finished before the cancel; never the second template's rest.
    expect(result.summary.migrated).toBeLessThan(7);
    const rest = result.templates.find((r) => r.template === env.sim.template.name);
    expect(rest?.summary?.migrated).toBe(1);
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 300_000);
});

describe('migrateOrganization: its shared fleet-continue gate rejected', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('ends cancelled, saying who rejected the gate and their comment (it used to say only "cancelled"); the canary kept its volume', async () => {
    const uidsBefore = pvcUids(env);
    const id = `wsmigrate-org/coder/${env.sim.template.name}-reject`;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    await approveTemplatesAsTheyAsk(env, [env.sim.template.name], async () => (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue');
    await decide(env.t.client, id, 'reject', { approver: 'sre', comment: 'not tonight' });
    await expect(env.t.client.workflow.getHandle(id).result()).rejects.toThrow();
    const s = await organizationStatus(env.t.client, id);
    expect(s.result?.cancelledBy).toEqual({ by: 'fleet-continue gate', reason: "rejected by sre at the fleet-continue gate ('not tonight')" });
    expect(organizationStatusText(s)).toMatch(new RegExp(`^${id}: cancelled by fleet-continue gate \\(rejected by sre at the fleet-continue gate \\('not tonight'\\)\\)\n`));
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});

describe('migrateOrganization: a canary restored, then migrated by the rest', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('counts the workspace once, as migrated (it was also counted restored, and --wait exited 3 with every workspace migrated)', async () => {
    const uidsBefore = pvcUids(env);
    const id = `wsmigrate-org/coder/${env.sim.template.name}-restored-canary`;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    // The canary's build carrying the migrated state fails once: its migration restores it.
    env.sim.setFaults({ failBuilds: { transition: 'start', times: 1, message: 'injected: node not ready' } });
    await approveTemplatesAsTheyAsk(env, [env.sim.template.name], async () => (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue');
    expect((await organizationStatus(env.t.client, id)).progress?.templates[0].summary).toMatchObject({ migrated: 0, restored: 1 });
    await decide(env.t.client, id, 'approve', { approver: 'sre' });
    const result = (await env.t.client.workflow.getHandle(id).result()) as OrganizationResult;
    expect(result.summary).toMatchObject({ migrated: 2, alreadyMigrated: 0, restored: 0, failed: 0, needsAttention: 0, pvcUidsKept: 2 });
    expect(organizationExitCode(result)).toBe(EXIT.ok);
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});
