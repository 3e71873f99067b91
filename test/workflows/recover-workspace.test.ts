import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { registerRecoverCommand } from '../../src/cli/commands/recover';
import { EXIT } from '../../src/cli/io';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import { K8S_TEMPLATE_MAIN_TF, packTar } from '../../src/sim';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { WorkspaceRecoveryResult } from '../../src/contracts/recover-workspace';
import { runCommand } from '../harness/cli';
import { failureOf, waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

type State = { resources: { mode: string; type: string; name: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[] };
const pvcEntries = (text: string) =>
  (JSON.parse(text) as State).resources.filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_persistent_volume_claim'));

/**
 * Workspaces hit by a stray build while the fleet migrates: recovered from their last good state,
 * or reported lost with the build that destroyed the volume. Real dev server, simulator, real Terraform-shaped states.
 */
describe('recovery of damaged workspaces', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let originalVersionId: string;

  beforeAll(async () => {
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv({ workspaces: 7 }));
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i];
  const pvc = (i: number) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws(i).id));
  const input = (i: number, extra: Partial<MigrateWorkspaceInput> = {}): MigrateWorkspaceInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'none', approvers: ['sre'] },
    ...extra,
  });
  const latestBuild = async (i: number) => (await env.coder.workspace(ws(i).id)).latest_build;
  const build = async (i: number, body: { transition: 'start' | 'stop'; template_version_id?: string }) =>
    env.coder.waitForBuild((await env.coder.createWorkspaceBuild(ws(i).id, body)).id);
  const approveWhenAsked = async (workflowId: string, gateId: string) => {
    await waitFor(async () => ((await migrationStatus(env.t.client, workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === gateId, 120_000);
    return decide(env.t.client, workflowId, 'approve', { approver: 'sre' });
  };

  it('the issue: a user presses Update on an unmigrated workspace, the guarded build fails and forgets the PVC; migrate workspace recovers it', async () => {
    const before = pvc(0);
    expect(before).toBeDefined();
    const { startBuildId } = await env.sim.updateAndRestart(ws(0).id);
    const failed = await env.coder.waitForBuild(startBuildId);
    expect(failed.job.status).toBe('failed');
    expect(failed.job.error).toMatch(/already exists/);
    expect(pvcEntries(env.sim.stateOf(ws(0).id))).toEqual([]); // the bug's precondition: the state forgot the PVC

    // Policy none and a plain repair (the entry forgotten, the object kept, the guard allows): no one is asked.
    const handle = await startWorkspaceMigration(env.t.client, input(0), { taskQueue: env.taskQueue });
    const result = (await handle.result()) as WorkspaceRecoveryResult;
    expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).approvals).toEqual([]);
    expect(result.outcome).toBe('migrated');
    expect(result.recovery.fromBuild).toBe(failed.build_number - 1);
    expect(result.recovery.losses.join()).toMatch(new RegExp(`forgotten by build #${failed.build_number}`));

    const latest = await latestBuild(0);
    expect(latest).toMatchObject({ transition: 'start', template_version_id: targetVersionId, status: 'running' });
    expect(pvc(0)?.uid).toBe(before?.uid);
    const entries = pvcEntries(env.sim.stateOf(ws(0).id));
    expect(entries.map((e) => e.type)).toEqual(['kubernetes_persistent_volume_claim_v1']);
    expect(entries[0].instances[0].attributes.metadata?.[0]?.uid).toBe(before?.uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    // Both states were backed up: the damaged one and the good one.
    expect((await env.blobs.get(result.recovery.damagedBackup.ref)).length).toBeGreaterThan(0);

    // And now it is healthy: a second run is a no-op.
    const again = await (await startWorkspaceMigration(env.t.client, input(0), { taskQueue: env.taskQueue })).result();
    expect(again).toMatchObject({ outcome: 'already-migrated' });
  });

  it('a PVC really destroyed (the KB option A by hand: migrated state pushed, then a plain start) is reported lost with its build, never migrated', async () => {
    const before = pvc(1);
    await build(1, { transition: 'stop' });
    const stopped = await latestBuild(1);
    const text = (await env.coder.getWorkspaceBuildState(stopped.id)).toString('utf8');
    const byHand = JSON.parse(text) as State & { serial: number };
    for (const r of byHand.resources) r.type = r.type.replace(/^kubernetes_persistent_volume_claim$/, 'kubernetes_persistent_volume_claim_v1');
    byHand.serial += 1;
    await env.coder.putWorkspaceBuildState(stopped.id, Buffer.from(JSON.stringify(byHand)));
    const plain = await build(1, { transition: 'start' }); // no version: Coder reuses the old one
    expect(plain.template_version_id).toBe(originalVersionId);
    expect(pvc(1)?.uid).not.toBe(before?.uid);

    const handle = await startWorkspaceMigration(env.t.client, input(1), { taskQueue: env.taskQueue });
    const message = await failureOf(handle.result());
    expect(message).toContain(`${ws(1).owner}/${ws(1).name}`);
    expect(message).toMatch(new RegExp(`kubernetes_persistent_volume_claim_v1.home destroyed by build #${plain.build_number} \\(uid ${before?.uid} is now ${pvc(1)?.uid}\\) at 20`));
    expect(message).toMatch(/backups: current state of build #\d+ \S*sha256[:/][0-9a-f]{64}, state of build #\d+ \S*sha256[:/][0-9a-f]{64}/);
    expect(message).not.toMatch(/already-migrated/);
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.phase).toBe('needs-attention');
    expect(status.stepsDone).not.toContain('build');
    expect((await latestBuild(1)).id).toBe(plain.id); // nothing built
  });

  it('the reverse stray: a migrated workspace started pinned to the old version loses its PVC; the loss is reported with the build number', async () => {
    const migrated = await (await startWorkspaceMigration(env.t.client, input(2, { option: 'B' }), { taskQueue: env.taskQueue })).result();
    expect(migrated).toMatchObject({ outcome: 'migrated' });
    const before = pvc(2);
    const downgrade = await build(2, { transition: 'start', template_version_id: originalVersionId });
    expect(downgrade.job.status).toBe('succeeded');
    expect(pvc(2)?.uid).not.toBe(before?.uid);

    const handle = await startWorkspaceRecovery(env.t.client, input(2), { taskQueue: env.taskQueue });
    const message = await failureOf(handle.result());
    expect(message).toMatch(new RegExp(`kubernetes_persistent_volume_claim_v1.home destroyed by build #${downgrade.build_number}`));
    expect(message).toMatch(/Not migrated/);
  });

  it('the reverse stray, guarded: an old version that forgets the _v1 PVC fails its build; the workspace is detected and recovered with the same PVC', async () => {
    const migrated = await (await startWorkspaceMigration(env.t.client, input(5, { option: 'B' }), { taskQueue: env.taskQueue })).result();
    expect(migrated).toMatchObject({ outcome: 'migrated' });
    const before = pvc(5);
    // The old source with a guard for the other direction, as a template admin might add while the fleet moves.
    const guardedOld = `${K8S_TEMPLATE_MAIN_TF}\nremoved {\n  from = kubernetes_persistent_volume_claim_v1.home\n  lifecycle {\n    destroy = false\n  }\n}\n`;
    const file = await env.coder.uploadFile(await packTar([{ name: 'main.tf', content: guardedOld }]));
    const template = await env.coder.template(env.sim.template.id);
    const version = await env.coder.waitForTemplateVersion(
      (await env.coder.createTemplateVersion(template.organization_id, { template_id: template.id, file_id: file.hash, name: 'old-guarded' })).id,
    );
    expect(version.job.status).toBe('succeeded');
    const downgrade = await build(5, { transition: 'start', template_version_id: version.id });
    expect(downgrade.job.status).toBe('failed');
    expect(pvc(5)?.uid).toBe(before?.uid);
    expect(pvcEntries(env.sim.stateOf(ws(5).id))).toEqual([]);

    // Under policy destructive the same repair waits at gate recover.
    const handle = await startWorkspaceMigration(env.t.client, input(5, { approval: { policy: 'destructive', approvers: ['sre'] } }), { taskQueue: env.taskQueue });
    const receipt = await approveWhenAsked(handle.workflowId, 'recover');
    expect(receipt.gateId).toBe('recover');
    const result = (await handle.result()) as WorkspaceRecoveryResult;
    expect(result.outcome).toBe('migrated');
    expect(result.recovery.losses.join()).toMatch(new RegExp(`kubernetes_persistent_volume_claim_v1.home forgotten by build #${downgrade.build_number}`));
    expect(await latestBuild(5)).toMatchObject({ transition: 'start', template_version_id: targetVersionId, status: 'running' });
    expect(pvc(5)?.uid).toBe(before?.uid);
    expect(pvcEntries(env.sim.stateOf(ws(5).id))[0].instances[0].attributes.metadata?.[0]?.uid).toBe(before?.uid);
  });

  it('wsmigrate recover: a rejected recovery changes nothing; an approved one brings the workspace back', async () => {
    const before = pvc(3);
    const { startBuildId } = await env.sim.updateAndRestart(ws(3).id);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
    const damagedState = env.sim.stateOf(ws(3).id);

    const dry = (await (await startWorkspaceMigration(env.t.client, input(3, { dryRun: true }), { taskQueue: env.taskQueue })).result()) as WorkspaceRecoveryResult;
    expect(dry.outcome).toBe('dry-run');
    expect(dry.warnings[0]).toMatch(/^damaged: .*forgotten by build .*a recovery would start from build #\d+/);
    expect(env.sim.stateOf(ws(3).id)).toBe(damagedState);

    // As the CLI starts it: policy all.
    const first = await startWorkspaceRecovery(env.t.client, input(3, { approval: { policy: 'all', approvers: ['sre'] } }), { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, first.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'recover', 120_000);
    await decide(env.t.client, first.workflowId, 'reject', { approver: 'sre' });
    // What the operator reads: the recovery built nothing, the workspace is still damaged, and how to repair it later.
    const rejected = await failureOf(first.result());
    expect(rejected).toMatch(/recovery of .*: rejected by \S+ at the recover gate; the recovery built nothing: .* stays damaged \(.*forgotten by build/);
    expect(rejected).toContain(`When you want it repaired: wsmigrate recover ${ws(3).owner}/${ws(3).name} --template ${env.sim.template.name} --version ${targetVersionId}`);
    expect(env.sim.stateOf(ws(3).id)).toBe(damagedState);
    expect((await latestBuild(3)).id).toBe(startBuildId);

    // The second attempt through the CLI, as an SRE would run it.
    const saved = { ...process.env };
    let cli;
    try {
      Object.assign(process.env, { WSMIGRATE_TASK_QUEUE: env.taskQueue });
      delete process.env.WSMIGRATE_ENCRYPTION_KEY;
      cli = await runCommand(registerRecoverCommand, 'recover', `${ws(3).owner}/${ws(3).name}`, '--template', env.sim.template.name, '--version', targetVersionId, '--approver', 'sre');
    } finally {
      process.env = saved;
    }
    expect(cli.exitCode).toBe(EXIT.ok);
    const workflowId = /started (\S+)/.exec(cli.out)?.[1] ?? '';
    expect(workflowId).toBe(first.workflowId);
    await approveWhenAsked(workflowId, 'recover');
    expect(await env.t.client.workflow.getHandle(workflowId).result()).toMatchObject({ outcome: 'migrated' });
    expect(await latestBuild(3)).toMatchObject({ transition: 'start', template_version_id: targetVersionId, status: 'running' });
    expect(pvc(3)?.uid).toBe(before?.uid);
  });

  it('a new claim beside the old one (generate_name under a guarded build: a new uid in the state, no delete in the log) is put back to the old claim, only with a person\'s approval, and the new one is named for cleanup', async () => {
    const before = pvc(6);
    await build(6, { transition: 'stop' });
    const stopped = await latestBuild(6);
    // What Coder holds after such a build: the claim's entry, migrated, with the uid of the object
    // the API server just made; the build's log deletes nothing.
    const text = (await env.coder.getWorkspaceBuildState(stopped.id)).toString('utf8');
    const forced = JSON.parse(text) as State & { serial: number };
    for (const r of forced.resources) {
      if (!r.type.startsWith('kubernetes_persistent_volume_claim')) continue;
      r.type = 'kubernetes_persistent_volume_claim_v1';
      const meta = r.instances[0].attributes.metadata?.[0];
      if (meta) meta.uid = 'uid-of-the-new-empty-claim';
    }
    forced.serial += 1;
    await env.coder.putWorkspaceBuildState(stopped.id, Buffer.from(JSON.stringify(forced)));

    // Policy none: the recovery still waits for a person, saying why.
    const handle = await startWorkspaceMigration(env.t.client, input(6), { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'recover', 120_000);
    const asked = ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval;
    expect(asked?.summary).toMatch(/replaced in the state by build #\d+ \(a new object, uid uid-of-the-new-empty-claim, took its address and the log shows no delete: unless it was deleted outside Terraform, uid \S+ is still in the cluster/);
    expect(asked?.summary).toMatch(/Asked whatever the policy: a new object took a protected object's place/);
    expect(asked?.summary).not.toMatch(/destroyed/);
    expect(asked?.summary).toMatch(/Guard: ALLOW: [^.]*\)\. backups: current state/); // one period between the guard's sentence and the next
    expect(await latestBuild(6)).toMatchObject({ id: stopped.id }); // nothing built while it asks
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });

    const result = (await handle.result()) as WorkspaceRecoveryResult;
    expect(result.outcome).toBe('migrated');
    expect(result.recovery.fromBuild).toBe(stopped.build_number - 1);
    expect(result.warnings.join()).toMatch(/the object that took its place \(uid uid-of-the-new-empty-claim\) is no longer in the state and stays in the cluster; delete it by hand/);
    expect(pvc(6)?.uid).toBe(before?.uid);
    const entries = pvcEntries(env.sim.stateOf(ws(6).id));
    expect(entries[0].instances[0].attributes.metadata?.[0]?.uid).toBe(before?.uid);
    expect(await latestBuild(6)).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
  });

  it('wsmigrate recover: a target that is not owner/workspace is a usage error', async () => {
    const r = await runCommand(registerRecoverCommand, 'recover', 'alice', '--template', 't', '--version', targetVersionId);
    expect(r).toMatchObject({ exitCode: EXIT.usage, err: expect.stringMatching(/'alice' is not owner\/workspace/) });
  });

  it('wsmigrate recover refuses a workspace that is not damaged', async () => {
    const handle = await startWorkspaceRecovery(env.t.client, input(4), { taskQueue: env.taskQueue });
    expect(await failureOf(handle.result())).toMatch(/recover refused for .*: it is unmigrated .*use 'wsmigrate migrate workspace'/);
  });
});
