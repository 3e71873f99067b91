/**
 * The fleet's bookkeeping as pure functions: which workspaces it takes, how a child's end counts,
 * when the failure budget is spent, and how long the rest will take. The workflow holds the
 * waiting; these hold the rules, so tests can check them without a server.
 */
import type { FleetFilters } from './fleet-input';
import { FailureType } from './failure-types';
import { globToRegExp } from './glob';

/** waiting-for-build: a zero-touch fleet left a stopped workspace to migrate itself at its next start. */
/** `skipped`: not a migration's failure (its preflight found it dormant and running): counted skipped, with why, never finished. */
/**
 * `declined`: a gate of its migration answered no (a person rejected it, or nobody answered before its
 * time-out) and it ended as it was (nothing changed, or restored): a decision, never a failure, so it
 * never spends the failure budget.
 */
export type ChildOutcome = 'migrated' | 'already-migrated' | 'dry-run' | 'restored' | 'needs-attention' | 'failed' | 'waiting-for-build' | 'skipped' | 'declined';
export const CHILD_OUTCOMES: readonly ChildOutcome[] = ['migrated', 'already-migrated', 'dry-run', 'restored', 'needs-attention', 'failed', 'waiting-for-build', 'declined'];

export interface FleetCounts {
  migrated: number;
  'already-migrated': number;
  'dry-run': number;
  restored: number;
  'needs-attention': number;
  failed: number;
  'waiting-for-build': number;
  /**
   * Not migrated by this fleet and not already migrated: held for a human (its last migration ended
   * needs-attention), or taken by another run of the same workspace. A workspace found already on the
   * target version with a healthy state counts `already-migrated` (older runs counted it here).
   */
  skipped: number;
  /** Persistent volumes (PVC/PV) checked after a migration to have kept their uid (recovered workspaces' too). */
  pvcUidsKept: number;
  /** Of `migrated`: damaged workspaces brought back from their newest good build (not counted again). */
  recovered: number;
  /** Prebuilt workspaces found and left to Coder's prebuilds reconciler (prebuilt-workspaces.ts); absent in older runs' state. */
  prebuilt?: number;
  /** Of `skipped`: running dormant workspaces (dormancy.ts), until their owner or an admin makes them active; absent in older runs' state. */
  dormant?: number;
  /** A gate of its migration said no (rejected, or timed out): left as it was; absent in older runs' state (counted failed or restored there). */
  declined?: number;
}

export function emptyCounts(): FleetCounts {
  return { migrated: 0, 'already-migrated': 0, 'dry-run': 0, restored: 0, 'needs-attention': 0, failed: 0, 'waiting-for-build': 0, skipped: 0, pvcUidsKept: 0, recovered: 0 };
}

export function finishedCount(c: FleetCounts): number {
  return CHILD_OUTCOMES.reduce((n, o) => n + (c[o] ?? 0), 0);
}

/** What a child's migration says when it ends; the fleet learns it by signal or by the child's result. */
export interface ChildReport {
  workflowId: string;
  outcome: ChildOutcome;
  /** Why it did not migrate (the workflow's own failure message). */
  reason?: string;
  pvcUidsKept?: number;
  /** A migration that found the workspace damaged and recovered it (its outcome is still `migrated`). */
  recovered?: boolean;
  durationMs?: number;
}

/**
 * A migration's failure type → how the fleet counts it: rolled back is safe, needs-attention is not, and
 * a gate's no (WsmigrateRejected) is a decision: `declined`, unless `declinedApart` is false (how fleets
 * before it counted a rejection: failed; their recorded histories replay so).
 */
export function outcomeOfFailure(failureType: string | undefined | null, declinedApart = true): ChildOutcome {
  if (failureType === FailureType.rejected && declinedApart) return 'declined';
  if (failureType === FailureType.rolledBack) return 'restored';
  if (failureType === FailureType.needsAttention) return 'needs-attention';
  if (failureType === FailureType.dormant) return 'skipped';
  return 'failed';
}

export interface FailureBudget {
  percent: number;
  min: number;
}

/** How many failures (failed + needs-attention; never declined) the fleet tolerates after `finished` migrations. */
export function budgetAllowance(finished: number, budget: FailureBudget): number {
  return Math.max(budget.min, Math.floor((budget.percent / 100) * finished));
}

/**
 * The finished migrations the budget is a share of: those found already migrated by discovery
 * (`foundMigrated`) never ran, so a re-run over a mostly migrated fleet keeps the budget it had.
 */
export function budgetBase(c: FleetCounts, foundMigrated = 0): number {
  // Nor do the declined: a person's no (or an unanswered gate) neither spends the budget nor widens it.
  return Math.max(0, finishedCount(c) - foundMigrated - (c.declined ?? 0));
}

/** True when the failures since the last "resume past the budget" exceed the allowance. */
export function overBudget(c: FleetCounts, budget: FailureBudget, acceptedFailures: number, foundMigrated = 0): boolean {
  const bad = c.failed + c['needs-attention'] - acceptedFailures;
  return bad > budgetAllowance(budgetBase(c, foundMigrated), budget);
}

/** Remaining time from observed durations: the rest run `concurrency` at a time. Undefined until one finished. */
export function etaMs(remaining: number, durations: { totalMs: number; n: number }, concurrency: number): number | undefined {
  // Nothing left to migrate: no ETA to show (the archive gate, or the end, is next), not "ETA 0s".
  if (durations.n === 0 || remaining <= 0) return undefined;
  const mean = durations.totalMs / durations.n;
  return Math.ceil(remaining / Math.max(1, concurrency)) * mean;
}

/** The facts about a workspace the fleet decides on (from Coder's workspace list). */
export interface FleetWorkspaceFacts {
  id: string;
  owner: string;
  name: string;
  /** Coder's workspace status of the latest build: running, stopped, failed, … */
  status: string;
  latestVersionId: string;
  latestTransition: string;
  latestJobStatus: string;
  /** Owned by Coder's prebuilds system user (prebuilt-workspaces.ts). */
  prebuilt?: boolean;
  /** Coder's dormant_at, when set (dormancy.ts). */
  dormantSince?: string;
}

export type FleetSelection = 'migrate' | 'done' | 'filtered' | 'prebuilt' | 'dormant';

/**
 * `done`: its latest build succeeded on the target version. Only a finished migration gets there,
 * since the target version's guard blocks make an unmigrated workspace's build fail. `prebuilt`: left
 * to Coder's prebuilds reconciler, whatever the filters say. `dormant`: running and dormant, skipped
 * (never stopped or built) until its owner or an admin makes it active.
 */
export function selectForFleet(ws: FleetWorkspaceFacts, filters: FleetFilters, targetVersionId: string): FleetSelection {
  if (ws.latestTransition === 'delete') return 'filtered';
  if (ws.prebuilt) return 'prebuilt';
  if (filters.owners.length > 0 && !filters.owners.some((o) => o.toLowerCase() === ws.owner.toLowerCase())) return 'filtered';
  if (filters.name && !globToRegExp(filters.name).test(ws.name)) return 'filtered';
  if (filters.exclude.some((e) => e.toLowerCase() === `${ws.owner}/${ws.name}`.toLowerCase())) return 'filtered';
  if (ws.latestVersionId === targetVersionId && ws.latestJobStatus === 'succeeded') return 'done';
  if (filters.status !== 'any' && ws.status !== filters.status) return 'filtered';
  // As the preflight's refusal: its migration could not start it again after its stop. A stopped one is migrated stopped.
  if (ws.dormantSince && ws.latestTransition === 'start' && ws.latestJobStatus === 'succeeded') return 'dormant';
  return 'migrate';
}

/**
 * Where the next canary comes from in the queue: the first workspace of an owner the canary does not
 * hold yet, else the first. Coder lists by owner, so taking the head made the canary one owner's
 * workspaces; spread across owners it tries more of the fleet's variety before the gate.
 */
export function nextCanaryIndex(queue: readonly { owner: string }[], canarySubjects: readonly string[]): number {
  const owners = new Set(canarySubjects.map((s) => s.split('/')[0]));
  const i = queue.findIndex((item) => !owners.has(item.owner));
  return i < 0 ? 0 : i;
}

/** Why a workspace another run was migrating when the fleet reached it is skipped, and what to do. */
export function takenByAnotherRunReason(workflowId: string): string {
  return (
    `skipped: another run was already migrating it when the fleet reached it (${workflowId}: a migration or recovery by hand, or another fleet's window); ` +
    `the fleet neither waited for it nor counts its outcome. See 'wsmigrate status ${workflowId}' (it may wait at a gate), and run the fleet again once it has ended if it did not migrate`
  );
}
