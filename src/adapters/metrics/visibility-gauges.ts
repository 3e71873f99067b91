import type { Connection } from '@temporalio/client';
import type { InFlightCounts } from './prometheus-metrics';

/** Phases a workspace migration can be in while it runs (the terminal ones are counted as finished). */
export const IN_FLIGHT_PHASES = [
  'preflight',
  'stopping',
  'backing-up',
  'rewriting',
  'verifying',
  'awaiting-approval',
  'pushing-state',
  'starting',
  'checking',
  'compensating',
] as const;

export const APPROVAL_GATES = ['stop', 'apply', 'start', 'template-push', 'template-promote', 'canary'] as const;

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
      const phases = await Promise.all(IN_FLIGHT_PHASES.map((p) => count(`WorkflowType = 'migrateWorkspace' AND ${running} AND WsmigratePhase = '${p}'`)));
      const gates = await Promise.all(APPROVAL_GATES.map((g) => count(`${running} AND WsmigratePendingApproval = '${g}'`)));
      return {
        byPhase: Object.fromEntries(IN_FLIGHT_PHASES.map((p, i) => [p, phases[i]])),
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
