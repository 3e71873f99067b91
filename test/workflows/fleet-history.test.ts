import { startFleet } from '../../src/client/fleet';
import { workspaceWorkflowId } from '../../src/domain/migration-input';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Continue-as-new keeps every run of a fleet far below Temporal's 10,240-event warning. The normal
 * suite runs 150 workspaces with a small threshold (about three runs: a first, a middle one that both
 * takes over and hands over, a last; 300 made six runs of the same kind); WSMIGRATE_FLEET_SCALE=1
 * (used by `make bench`) runs the 2,000 with the default threshold.
 */
const SCALE = process.env.WSMIGRATE_FLEET_SCALE === '1';
const WORKSPACES = SCALE ? 2000 : 150;
const HISTORY_LIMIT = SCALE ? 4000 : 400;

describe(`migrateFleet history on ${WORKSPACES} workspaces`, () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: WORKSPACES, buildLatencyMs: 5 }));
  }, 120_000);
  afterAll(async () => env?.close());

  it('continues as new with its progress, each run under 10,000 events, every workspace reported once', async () => {
    const started = Date.now();
    const handle = await startFleet(
      env.t.client,
      {
        organization: 'coder',
        template: env.sim.template.name,
        targetVersionId,
        dryRun: true,
        canary: 0,
        concurrency: 50,
        historyLimit: HISTORY_LIMIT,
        approval: { policy: 'none' },
      },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary.dryRun + result.summary.failed).toBe(WORKSPACES);
    expect(result.summary.failed).toBe(0);

    const runs: { runId: string; events: number }[] = [];
    for await (const wf of env.t.client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) {
      const history = await env.t.client.workflow.getHandle(handle.workflowId, wf.runId).fetchHistory();
      runs.push({ runId: wf.runId, events: history.events?.length ?? 0 });
    }
    const longest = Math.max(...runs.map((r) => r.events));
    process.stdout.write(`fleet of ${WORKSPACES}: ${runs.length} runs, longest history ${longest} events, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    expect(runs.length).toBeGreaterThan(1);
    expect(longest).toBeLessThan(10_000);

    // Only the children running when a run continued-as-new were asked to signal (at most the window per run); the rest reported by their result.
    let signalled = 0;
    for (const ws of env.sim.workspaces()) {
      const child = await env.t.client.workflow.getHandle(workspaceWorkflowId(env.sim.template.name, ws.owner, ws.name)).fetchHistory();
      if ((child.events ?? []).some((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)) signalled += 1;
    }
    expect(signalled).toBeGreaterThan(0);
    expect(signalled).toBeLessThanOrEqual((runs.length - 1) * 50);
  }, SCALE ? 1_800_000 : 400_000);
});
