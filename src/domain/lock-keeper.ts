/**
 * The lock keeper's decision for one of wsmigrate's `template-lock` marks: whether a run still holds
 * the template's require_active_version, or whether none does and the setting must be given back.
 * A run that is terminated or times out runs no code at its end, so its mark (and the setting) would
 * stay with nobody watching the active version: an admin's rollback would then make Coder's
 * lifecycle executor autostart every migrated workspace on the old version with its `_v1` state
 * (coderd/autobuild/lifecycle_executor.go useActiveVersion) and destroy every PVC.
 */

/** How Temporal answers for a workflow id named in the mark. */
export type MarkHolder =
  | { workflowId: string; state: 'running' }
  /** Closed in any way (completed, failed, cancelled, terminated, timed out), or not found (its retention expired). */
  | { workflowId: string; state: 'closed'; how: string }
  /** Temporal could not be asked (unreachable, denied, any error but not-found). */
  | { workflowId: string; state: 'unknown'; error: string };

export interface LockReading {
  /** `organization/template`, the mark's label. */
  template: string;
  /** Every workflow id the mark's records name (a later run that found the mark adds its own). */
  holders: readonly MarkHolder[];
  /** Running fleet and organization runs whose templates include this one; an error when they could not be listed. */
  claimants: readonly string[] | { error: string };
}

export type KeeperDecision =
  | { action: 'give-back'; why: string }
  | { action: 'leave'; because: 'held'; by: string }
  | { action: 'leave'; because: 'unknown'; error: string }
  /** A mark with no label or no workflow id: nothing says which template or which run; a person must look. */
  | { action: 'leave'; because: 'unreadable'; what: string };

/** Give back only when every run the mark names is closed and no run on the template runs; any doubt leaves it on. */
export function decideOrphanLock(r: LockReading): KeeperDecision {
  if (r.holders.length === 0) return { action: 'leave', because: 'unreadable', what: 'its records name no workflow' };
  const running = r.holders.find((h) => h.state === 'running');
  if (running) return { action: 'leave', because: 'held', by: running.workflowId };
  const unknown = r.holders.find((h): h is Extract<MarkHolder, { state: 'unknown' }> => h.state === 'unknown');
  if (unknown) return { action: 'leave', because: 'unknown', error: `${unknown.workflowId}: ${unknown.error}` };
  if ('error' in r.claimants) return { action: 'leave', because: 'unknown', error: `the running runs: ${r.claimants.error}` };
  if (r.claimants.length > 0) return { action: 'leave', because: 'held', by: r.claimants[0] };
  const closed = r.holders.map((h) => `${h.workflowId} ${h.state === 'closed' ? h.how : ''}`.trim());
  return { action: 'give-back', why: `${closed.join(', ')}, and no run on the template runs` };
}

/** What the keeper did with one mark, as it logs it: one line per template per outcome. */
export type KeeperOutcome =
  | { template: string; outcome: 'given-back'; why: string }
  | { template: string; outcome: 'was-off'; why: string }
  | { template: string; outcome: 'held'; by: string }
  | { template: string; outcome: 'unknown'; error: string }
  | { template: string; outcome: 'unreadable'; what: string }
  | { template: string; outcome: 'coder-refused'; error: string };

export function keeperLine(o: KeeperOutcome, intervalSeconds: number): string {
  const again = `left on; the lock keeper tries again in ${intervalSeconds} s`;
  switch (o.outcome) {
    case 'given-back':
      return `lock keeper: require_active_version given back (off) on template ${o.template}: no wsmigrate run holds it (${o.why})`;
    case 'was-off':
      return `lock keeper: wsmigrate's mark on template ${o.template} removed: require_active_version was already off (${o.why})`;
    case 'held':
      return `lock keeper: require_active_version on template ${o.template} is held by ${o.by}, which runs; left on`;
    case 'unknown':
      return `lock keeper: could not ask Temporal whether a run holds require_active_version on template ${o.template} (${o.error}); ${again}`;
    case 'coder-refused':
      return `lock keeper: Coder did not give back require_active_version on template ${o.template} (${o.error}); ${again}, or switch it off with \`coder templates edit ${o.template.split('/').slice(1).join('/')} --require-active-version=false\``;
    case 'unreadable':
      return `lock keeper: wsmigrate's mark for template ${o.template} cannot be read (${o.what}); left as it is: check the template's require_active_version by hand`;
  }
}
