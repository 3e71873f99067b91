import type { Connection } from '@temporalio/client';
import type { InFlightCounts } from './prometheus-metrics';

/**
 * A running migration writes WsmigratePhase only at milestones (to keep its history short), so the
 * gauge counts what visibility can tell exactly: waiting on a human (WsmigratePendingApproval),
 * compensating (a milestone), and every other running migration as 'running'.
 */
export const IN_FLIGHT_PHASES = ['running', 'awaiting-approval', 'compensating'] as const;

export const APPROVAL_GATES = ['stop', 'apply', 'start', 'recover', 'template-push', 'template-promote', 'canary', 'fleet-continue', 'fleet-budget', 'fleet-archive'] as const;

/**
 * Gauges of what is running come from Temporal's visibility, not from a worker's memory: with two
 * workers, or after a restart, only Temporal knows how many migrations wait in each phase. Answers
 * are cached so a burst of scrapes costs one round of count queries.
 */
export function visibilityCounts(connection: Connection, namespace: string, opts: { cacheMs?: number } = {}): () => Promise<InFlightCounts | undefined> {
  const cacheMs = opts.cacheMs ?? 15_000;
  let cached: { at: number; value: Promise<InFlightCounts | undefined> } | undefined;
  const count = async (query: string) => Number((await connection.workflowService.countWorkflowExecutions({ namespace, query })).count ?? 0);
  const readAll = async (): Promise<InFlightCounts | undefined> => {
    try {
      const running = `ExecutionStatus = 'Running'`;
      const workspaceRuns = `WorkflowType IN ('migrateWorkspace', 'recoverWorkspace') AND ${running}`;
      const [all, awaiting, compensating] = await Promise.all([
        count(workspaceRuns),
        count(`${workspaceRuns} AND WsmigratePendingApproval != 'none'`),
        count(`${workspaceRuns} AND WsmigratePhase = 'compensating'`),
      ]);
      const gates = await Promise.all(APPROVAL_GATES.map((g) => count(`${running} AND WsmigratePendingApproval = '${g}'`)));
      return {
        byPhase: { running: Math.max(0, all - awaiting - compensating), 'awaiting-approval': awaiting, compensating },
        pendingByGate: Object.fromEntries(APPROVAL_GATES.map((g, i) => [g, gates[i]])),
      };
    } catch {
      // Temporal unreachable: leave the gauges empty rather than report stale numbers; /readyz says why.
      return undefined;
    }
  };
  return () => {
    if (!cached || Date.now() - cached.at > cacheMs) cached = { at: Date.now(), value: readAll() };
    return cached.value;
  };
}
