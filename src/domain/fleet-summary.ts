/** A fleet's end in numbers and in words: what its result, memo and last notification say. Pure. */
import type { FleetCounts } from './fleet-progress';

export interface FleetSummary {
  migrated: number;
  alreadyMigrated: number;
  restored: number;
  needsAttention: number;
  failed: number;
  skipped: number;
  dryRun: number;
  pvcUidsKept: number;
  /** Of `migrated`: damaged workspaces recovered from their newest good build. */
  recovered: number;
  /** Prebuilt workspaces left to Coder's prebuilds reconciler (never migrated); absent in older results. */
  prebuilt?: number;
  /** Of `skipped`: running dormant workspaces (their owner or an admin makes them active first); absent in older results. */
  dormant?: number;
  /** A gate of their migration said no (a person rejected it, or nobody answered in time): left as they were, not failed; absent when none. */
  declined?: number;
}

const NO_SUMMARY: FleetSummary = { migrated: 0, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, declined: 0, skipped: 0, dryRun: 0, pvcUidsKept: 0, prebuilt: 0, dormant: 0 };

/** Two fleets' summaries added field by field (an absent one counts nothing). */
export function addSummaries(a: FleetSummary | undefined, b: FleetSummary | undefined): FleetSummary {
  const base = a ?? NO_SUMMARY;
  return Object.fromEntries(Object.entries(NO_SUMMARY).map(([k]) => [k, (base[k as keyof FleetSummary] ?? 0) + (b?.[k as keyof FleetSummary] ?? 0)])) as unknown as FleetSummary;
}

export function summaryOf(c: FleetCounts): FleetSummary {
  return {
    migrated: c.migrated,
    alreadyMigrated: c['already-migrated'],
    restored: c.restored,
    needsAttention: c['needs-attention'],
    failed: c.failed,
    skipped: c.skipped,
    dryRun: c['dry-run'],
    pvcUidsKept: c.pvcUidsKept,
    recovered: c.recovered ?? 0,
    prebuilt: c.prebuilt ?? 0,
    dormant: c.dormant ?? 0,
    // Only when some were: a summary (and the memo it is written to) stays as it was for a fleet without any.
    ...(c.declined ? { declined: c.declined } : {}),
  };
}

/** The text of the fleet-done notification. */
export function fleetDoneText(summary: FleetSummary, moreRemaining: boolean): string {
  return `${summary.migrated} migrated${summary.recovered ? ` (${summary.recovered} of them recovered from a damaged state)` : ''}, ${summary.alreadyMigrated} already migrated, ${summary.restored} restored, ${summary.needsAttention} need attention, ${summary.failed} failed, ${summary.declined ? `${summary.declined} declined at a gate (rejected, or not answered in time: left as they were), ` : ''}${summary.skipped} skipped${summary.dormant ? ` (${summary.dormant} dormant: for each, its owner or an admin makes it active, then run the fleet again)` : ''}${summary.prebuilt ? `, ${summary.prebuilt} prebuilt left to Coder (its reconciler replaces them on the active version)` : ''}; ${summary.pvcUidsKept} PVC uid(s) kept.${moreRemaining ? ' More workspaces remain for a later run.' : ''}`;
}

/** The counts as a notification carries them. */
export function countsRecord(c: FleetCounts): Record<string, number> {
  return { ...c };
}

/**
 * One template's counts in an organization's run, each workspace once: its canary fleet's, then its
 * rest fleet's. The rest fleet lists every workspace of the template again, the canary's included: a
 * workspace the canary migrated counts there as already-migrated, and one the canary did not (failed,
 * restored, needs-attention, declined, skipped) is retried or held there and counted with that outcome.
 * Added field by field, a canary workspace counted twice: `6 migrated, 1 already migrated` for six
 * workspaces, and a canary restored then migrated by the rest still counted `restored` (so `--wait`
 * exited 3 with every workspace migrated). So: what the canary migrated (and recovered, and the PVC uids
 * it kept) is added and taken from the rest's already-migrated; everything else is the rest's, when it
 * reached every workspace (ended done, no batch limit left any). A rest that stopped short (a batch, a
 * cancel) may not have reached a canary workspace that was not migrated: those counts are added.
 */
export function canaryThenRest(canary: FleetSummary, rest: FleetSummary, restReachedEvery: boolean): FleetSummary {
  const migratedByCanary = { migrated: canary.migrated, recovered: canary.recovered, pvcUidsKept: canary.pvcUidsKept };
  const base = restReachedEvery ? { ...NO_SUMMARY, ...migratedByCanary } : { ...canary, alreadyMigrated: 0 };
  const sum = addSummaries(base, rest);
  const out: FleetSummary = { ...sum, alreadyMigrated: Math.max(0, rest.alreadyMigrated - canary.migrated) };
  // Declined only once some fleet declined one: the total (and the memo) stays as it was without.
  if (!out.declined) delete out.declined;
  return out;
}

/** Workspaces a run set out to migrate and did not (failed, restored, needs attention, declined): any makes `--wait` exit 3. */
export function notMigratedCount(s: Pick<FleetSummary, 'failed' | 'needsAttention' | 'restored' | 'declined'>): number {
  return s.failed + s.needsAttention + s.restored + (s.declined ?? 0);
}
