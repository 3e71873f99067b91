import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { defaultWorkflowsPath } from '../../src/worker/create-worker';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { decodeHistory, eventTypes, recordHistories } from './fixtures/record-histories';

const FIXTURES = join(__dirname, 'fixtures', 'histories');

interface Fixture {
  workflowType: string;
  workflowId: string;
  events: string[];
  historyBase64: string;
}

function fixtures(): [string, Fixture][] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Fixture]);
}

/**
 * Upgrading workers mid-migration. The fixtures are histories the released version recorded
 * (`make record-histories`): a workflow change that would break a run begun under that version fails
 * here, and needs `patched()` (README, "Upgrading the worker").
 */
describe('replaying recorded histories on this code', () => {
  it('has a fixture for every workflow a release runs', () => {
    expect([...new Set(fixtures().map(([, f]) => f.workflowType))].sort()).toEqual(['migrateFleet', 'migrateTemplate', 'migrateWorkspace', 'recoverWorkspace']);
  });

  it('each fixture holds the events it lists', () => {
    for (const [name, f] of fixtures()) expect({ name, events: eventTypes(decodeHistory(f.historyBase64)) }).toEqual({ name, events: f.events });
  });

  it('every recorded history replays', async () => {
    expect(await replayErrors(fixtures().map(([name, f]) => ({ name, workflowId: f.workflowId, historyBase64: f.historyBase64 })))).toEqual({});
  }, 180_000);
});

/** Replays the histories on one replay worker (one bundle); the errors by history name, none when all replay. */
async function replayErrors(histories: { name: string; workflowId: string; historyBase64: string }[]): Promise<Record<string, string>> {
  const byId = new Map(histories.map((h) => [h.workflowId, h.name]));
  const errors: Record<string, string> = {};
  const results = Worker.runReplayHistories(
    { workflowsPath: defaultWorkflowsPath() },
    histories.map((h) => ({ workflowId: h.workflowId, history: decodeHistory(h.historyBase64) })),
  );
  for await (const r of results) if (r.error) errors[byId.get(r.workflowId) ?? r.workflowId] = r.error.message;
  return errors;
}

describe("histories this code writes", () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 5 });
  });
  afterAll(async () => env?.close());

  it('replay on this code: every gate approved, one rejected and restored, a round started over, a recovery, a fleet', async () => {
    const worker = await env.startWorker();
    let recorded;
    try {
      recorded = await recordHistories(env);
    } finally {
      await worker.stop();
    }
    const closed = (r: { events: string[] }) => r.events[r.events.length - 1];
    expect(recorded.map((r) => [r.name, closed(r)])).toEqual([
      ['template-promoted', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
      ['workspace-migrated', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
      ['workspace-rejected-restored', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
      ['workspace-restarted-round', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
      ['workspace-recovered', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
      ['fleet', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    ]);
    expect(await replayErrors(recorded)).toEqual({});
  }, 300_000);
});
