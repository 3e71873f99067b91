import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { decide, migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import { defaultWorkflowsPath } from '../../src/worker/create-worker';
import type { WorkspaceMigrationStatus } from '../../src/workflows/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The versioning rule after the first release: a change to workflow code must replay every history
 * the released code records (then `patched` → `deprecatePatch` → removal, one release apart). These
 * fixtures are histories recorded by this version (0.1.0, no patch markers); re-record them only when
 * a release deliberately drops replay of older runs: WSMIGRATE_RECORD_HISTORIES=1 npx jest test/workflows/history-replay.test.ts
 */
const FIXTURES = join(__dirname, 'fixtures', 'histories');
const RECORD = process.env.WSMIGRATE_RECORD_HISTORIES === '1';

/**
 * The history as protobuf bytes (base64): this install's protobufjs copies disagree, so the SDK's
 * historyToJSON cannot serialize it; `events` lists the event types for a readable diff.
 */
interface RecordedHistory {
  workflowId: string;
  workflowType: string;
  scenario: string;
  events: string[];
  historyProtobufBase64: string;
}

const HistoryProto = temporal.api.history.v1.History;
const eventTypeName = (t: number | null | undefined) => temporal.api.enums.v1.EventType[t ?? 0] ?? String(t);

function patchMarkers(history: History): number {
  return (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
}

const fixtures = () => (existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort() : []);

describe('workflow histories recorded by this version replay on this code', () => {
  let env: MigrationEnv | undefined;
  afterAll(async () => env?.close());

  // Recording is a mode of this file, not a skipped test: with the variable set it records, otherwise it replays.
  if (RECORD) it('records the fixtures (WSMIGRATE_RECORD_HISTORIES=1)', async () => {
    env = await createMigrationEnv({ workspaces: 5, seed: 21 });
    const e = env;
    const worker = await e.startWorker();
    try {
      const targetVersionId = (await e.migrateTemplate()).versionId;
      const ws = (i: number) => e.sim.workspaces()[i];
      const input = (i: number, option: 'A' | 'B', policy: 'all' | 'none' | 'destructive') => ({
        owner: ws(i).owner,
        workspace: ws(i).name,
        template: e.sim.template.name,
        targetVersionId,
        option,
        approval: { policy, approvers: ['sre'] },
      });
      const statusOf = async (id: string) => (await migrationStatus(e.t.client, id)) as WorkspaceMigrationStatus;
      const answer = async (id: string, gateId: string, decision: 'approve' | 'reject' = 'approve') => {
        await waitFor(async () => (await statusOf(id)).pendingApproval?.gateId === gateId, 120_000);
        await decide(e.t.client, id, decision, { approver: 'sre' });
      };
      const save = async (scenario: string, workflowType: string, handle: { workflowId: string; fetchHistory(): Promise<History> }) => {
        const history = await handle.fetchHistory();
        mkdirSync(FIXTURES, { recursive: true });
        const bytes = HistoryProto.encode(HistoryProto.fromObject(history)).finish();
        const recorded: RecordedHistory = {
          workflowId: handle.workflowId,
          workflowType,
          scenario,
          events: (history.events ?? []).map((ev) => eventTypeName(ev.eventType as number)),
          historyProtobufBase64: Buffer.from(bytes).toString('base64'),
        };
        writeFileSync(join(FIXTURES, `${scenario}.json`), `${JSON.stringify(recorded, null, 1)}\n`);
      };

      // Option A through both gates: stop, back up, rewrite, verify, one build carrying the state, check.
      const a = await startWorkspaceMigration(e.t.client, input(0, 'A', 'all'), { taskQueue: e.taskQueue });
      await answer(a.workflowId, 'stop');
      await answer(a.workflowId, 'apply');
      await expect(a.result()).resolves.toMatchObject({ outcome: 'migrated' });
      await save('migrate-workspace-option-a-gates', 'migrateWorkspace', a);

      // Rejected at the apply gate: the compensation (a restore build back to the prior transition).
      const rejected = await startWorkspaceMigration(e.t.client, input(1, 'A', 'destructive'), { taskQueue: e.taskQueue });
      await answer(rejected.workflowId, 'apply', 'reject');
      await expect(rejected.result()).rejects.toThrow();
      await save('migrate-workspace-rejected-compensation', 'migrateWorkspace', rejected);

      // Someone builds between our backup and our build: the run starts over (round 2).
      const raced = await startWorkspaceMigration(e.t.client, input(2, 'B', 'all'), { taskQueue: e.taskQueue });
      await waitFor(async () => (await statusOf(raced.workflowId)).pendingApproval?.gateId === 'apply', 120_000);
      await e.coder.waitForBuild((await e.coder.createWorkspaceBuild(ws(2).id, { transition: 'stop' })).id);
      await decide(e.t.client, raced.workflowId, 'approve', { approver: 'sre' });
      await waitFor(async () => (await statusOf(raced.workflowId)).restarts === 1, 120_000);
      await answer(raced.workflowId, 'apply');
      await expect(raced.result()).resolves.toMatchObject({ outcome: 'migrated' });
      await save('migrate-workspace-restarted-round', 'migrateWorkspace', raced);

      // A damaged workspace (an Update that forgot its PVC) recovered on request.
      const { startBuildId } = await e.sim.updateAndRestart(ws(3).id);
      await e.coder.waitForBuild(startBuildId);
      const recovery = await startWorkspaceRecovery(e.t.client, input(3, 'B', 'none'), { taskQueue: e.taskQueue });
      await answer(recovery.workflowId, 'recover');
      await expect(recovery.result()).resolves.toMatchObject({ outcome: 'migrated' });
      await save('recover-workspace', 'recoverWorkspace', recovery);
    } finally {
      await worker.stop();
    }
  }, 600_000);

  if (RECORD) return;

  it('has a recorded history for each workspace workflow and scenario', () => {
    expect(fixtures()).toEqual(['migrate-workspace-option-a-gates.json', 'migrate-workspace-rejected-compensation.json', 'migrate-workspace-restarted-round.json', 'recover-workspace.json']);
  });

  it.each(fixtures())('%s replays without nondeterminism, and this version recorded no patch marker', async (file) => {
    const recorded = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as RecordedHistory;
    const history = HistoryProto.decode(Buffer.from(recorded.historyProtobufBase64, 'base64'));
    expect((history.events ?? []).map((ev) => eventTypeName(ev.eventType as number))).toEqual(recorded.events);
    expect((history.events ?? []).length).toBeGreaterThan(10);
    expect(patchMarkers(history)).toBe(0);
    await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, recorded.workflowId)).resolves.toBeUndefined();
  }, 120_000);
});
