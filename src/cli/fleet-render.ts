import { formatDuration } from '../domain/duration-text';
import { activeVersionLockLine } from '../domain/fleet-details';
import { isPersonWait, waitLines, waitTag, waitsOnPeople, type FleetWait } from '../domain/fleet-waits';
import { noDaemonOnline, pacingLine } from '../domain/provisioner-pacing';
import { ranCountsOf, rollbacksNote } from '../domain/fleet-rollbacks';
import { approvalCommands } from '../domain/run-details';
import { whoMayApprove } from '../domain/approval-policy';
import type { FleetStatus } from '../client/fleet';
import type { FleetFailure, FleetProgress, FleetResult } from '../contracts/migrate-fleet';

/**
 * No ETA while a person is awaited (the fleet's own gate, or children at gates with nothing else
 * running), nor while no provisioner daemon is online: nothing builds until one is back.
 */
function etaText(p: FleetProgress, waits: readonly FleetWait[]): string {
  const people = waitsOnPeople({ ownGate: Boolean(p.pendingApproval), stage: p.stage, running: p.running.length, childrenAtGates: p.childApprovals.length }) || waits.some(isPersonWait);
  return p.etaMs !== undefined && !people && !noDaemonOnline(p.pacing) ? ` · ETA ${formatDuration(p.etaMs)}` : '';
}

/** What the fleet waits on, short: a gate, a child's gate, an activity retrying, a pending cancel. */
function waitText(p: FleetProgress, waits: readonly FleetWait[]): string {
  const tag = waitTag(waits) ?? (p.pendingApproval ? `awaiting '${p.pendingApproval.gateId}'` : undefined);
  return tag ? ` · ${tag}` : '';
}

/** The bar's last words: the wait when there is one (it says more than "awaiting-approval"), else a phase other than running. */
function barPhase(p: FleetProgress, waits: readonly FleetWait[]): string {
  const wait = waitText(p, waits);
  if (wait && p.phase === 'awaiting-approval') return wait;
  return `${p.phase !== 'running' ? ` · ${p.phase}` : ''}${wait}`;
}

/** One plain line of a running fleet, for logs and non-TTY output. */
export function progressLine(p: FleetProgress, waits: readonly FleetWait[] = []): string {
  const c = p.counts;
  return `${p.phase} (${p.stage}): ${c.migrated} migrated, ${c['already-migrated']} already, ${c['dry-run']} dry-run, ${c.restored} restored, ${c['needs-attention']} need attention, ${c.failed} failed, ${c.declined ? `${c.declined} declined at a gate, ` : ''}${c.skipped} skipped${c.dormant ? ` (${c.dormant} dormant)` : ''}${c.prebuilt ? `, ${c.prebuilt} prebuilt left to Coder` : ''} · ${p.remaining} to go (${p.running.length} running)${etaText(p, waits)}${waitText(p, waits)}${!p.pendingApproval && p.phase !== 'paused' && p.pacing?.waiting ? ` · waiting: ${p.pacing.waiting}` : ''}`;
}

/**
 * A line cut to the terminal's width: the bar is redrawn in place with `\r` + erase-line, which
 * erases one screen row only, so a longer line would wrap and leave a trail of old bars behind.
 */
export function fitToWidth(line: string, columns: number | undefined): string {
  if (!columns || columns < 10 || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}

/**
 * The person-waits not announced yet (a child's gate, the template's), each as the line with its
 * approve command; `announced` keeps what was said so each is said once.
 */
export function newGateLines(waits: readonly FleetWait[], announced: Set<string>): string[] {
  const fresh = waits.filter((w) => w.kind === 'child-gate' && !announced.has(`${w.workflowId}:${w.gateId}`));
  for (const w of fresh) if (w.kind === 'child-gate') announced.add(`${w.workflowId}:${w.gateId}`);
  return waitLines(fresh);
}

/** `[#######·······]  23/50  migrated 20 · failed 1 · running 10 · ETA 1m20s` for a terminal. */
export function progressBar(p: FleetProgress, width = 28, waits: readonly FleetWait[] = []): string {
  const done = p.finished;
  const total = done + p.remaining;
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  const c = p.counts;
  const bad = c.failed + c['needs-attention'];
  const restored = c.restored ? ` · restored ${c.restored}` : '';
  // A gate's no is neither ok nor a failure: said apart.
  const declined = c.declined ? ` · declined ${c.declined}` : '';
  return `[${'#'.repeat(filled)}${'·'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total}  ok ${c.migrated + c['already-migrated'] + c['dry-run']}${restored} · not ok ${bad}${declined} · running ${p.running.length}${etaText(p, waits)}${barPhase(p, waits)}`;
}

/** The end of a fleet as a table: one row per outcome, the PVC uids kept, failures, the archive. */
export function summaryTable(r: FleetResult): string {
  const s = r.summary;
  const rows: [string, number][] = [
    ['migrated', s.migrated],
    ...(s.recovered ? [['  of them recovered', s.recovered] as [string, number]] : []),
    ['already-migrated', s.alreadyMigrated],
    ['dry-run', s.dryRun],
    ['restored', s.restored],
    ['needs-attention', s.needsAttention],
    ['failed', s.failed],
    ...(s.declined ? [['declined at a gate', s.declined] as [string, number]] : []),
    ['skipped', s.skipped],
    ...(s.dormant ? [['  of them dormant', s.dormant] as [string, number]] : []),
    // Coder's prebuilds reconciler replaces them on the active version (domain/prebuilt-workspaces.ts).
    ...(s.prebuilt ? [['prebuilt (Coder\'s)', s.prebuilt] as [string, number]] : []),
    ['PVC uids kept', s.pvcUidsKept],
  ];
  const by = r.cancelledBy ? ` by ${r.cancelledBy.by}${r.cancelledBy.reason ? ` (${r.cancelledBy.reason})` : ''}` : '';
  const lines = [`fleet ${r.phase}${by}${r.moreRemaining ? ' (more workspaces remain for a later run)' : ''}`, '', 'outcome            count', ...rows.map(([k, v]) => `${k.padEnd(18)} ${String(v).padStart(5)}`)];
  const rollbacks = rollbacksNote(r.summary, '', true);
  if (rollbacks) lines.push('', rollbacks);
  if (r.failures.length) {
    lines.push('', 'not migrated:');
    for (const f of r.failures) lines.push(`  ${f.subject.padEnd(28)} ${f.outcome.padEnd(16)} ${failureReason(f)}`);
  }
  // A person's no (or a gate nobody answered): not a failure, so not among those.
  if (r.declines?.length) {
    lines.push('', 'declined at a gate (left as they were: run them again when you mean to):');
    for (const d of r.declines) lines.push(`  ${d.subject.padEnd(28)} ${failureReason(d)}`);
  }
  // Whole: the reason says who must act and how.
  if (r.skips?.length) {
    lines.push('', 'skipped (a person must act first):');
    for (const s of r.skips) lines.push(`  ${s.subject.padEnd(28)} ${s.reason}`);
  }
  if (r.archive) {
    if (r.archive.archived.length) lines.push('', `archived old version(s): ${r.archive.archived.map((v) => v.name).join(', ')}`);
    else if (r.archive.skipped) lines.push('', `old versions not archived: ${r.archive.skipped}`);
    if (r.archive.keptInUse.length) lines.push(`still in use (kept): ${r.archive.keptInUse.map((v) => `${v.name} (${v.workspaces})`).join(', ')}`);
  }
  const lock = activeVersionLine(r);
  if (lock) lines.push('', lock);
  if (r.zeroTouch) {
    const z = r.zeroTouch;
    lines.push('', 'zero-touch:', `  migrated themselves (built on the zero-touch version): ${z.migratedThemselves}`);
    lines.push(`  migrated by the runbook (pinned start, then checked): ${z.migratedByRunbook.length}${z.migratedByRunbook.length ? `  ${z.migratedByRunbook.join(', ')}` : ''}`);
    lines.push(`  still waiting for a build (stopped; migrate at their next start): ${z.waitingForBuild.length}${z.waitingForBuild.length ? `  ${z.waitingForBuild.join(', ')}` : ''}`);
  }
  if (r.note) lines.push('', r.note);
  return lines.join('\n');
}

/**
 * A failure's reason on one row, without the workspace its row already names. A long one keeps both
 * ends, since the cause (Coder's own words: "… ended failed: image not found") and the next step come
 * last, and six rows cut before them could not show that their reasons agree; it points at the run's
 * status, which holds all of it.
 */
function failureReason(f: Pick<FleetFailure, 'reason' | 'workflowId' | 'subject'>): string {
  const max = 200;
  const tail = 110;
  const own = f.reason.startsWith(`${f.subject}: `) ? f.reason.slice(f.subject.length + 2) : f.reason;
  if (own.length <= max) return own;
  return `${own.slice(0, max - tail).trimEnd()} … ${own.slice(-tail).trimStart()} (all of it: wsmigrate status ${f.workflowId})`;
}

/** Whether members can still start a migrated workspace on an old version (which destroys its PVC). */
function activeVersionLine(r: FleetResult): string | undefined {
  const released = r.archive?.activeVersion;
  if (released === 'switched-off') {
    // A window that archived nothing gave it back because no workspace is on an old version, not because of an archive.
    return r.archive?.archived.length
      ? 'require active version: given back (off) now that the old versions are archived'
      : 'require active version: given back (off): no workspace is on an old version any more';
  }
  if (released === 'left-on-by-operator') return 'require active version: left on (it was on before wsmigrate)';
  const lock = r.activeVersionLock;
  if (lock?.state === 'given-back' && lock.atRunEnd) {
    return r.moreRemaining
      ? 'require active version: given back (off) as this run ended; the next run (window) switches it on again'
      : 'require active version: given back (off) as this run ended';
  }
  const line = activeVersionLockLine(lock, true);
  // Still on after the run (its give-back failed, the note says why, or a run from before the give-back): what to do.
  if (lock?.state === 'switched-on' || (lock?.state === 'already-on' && lock.byWsmigrate)) return `${line}: do not promote an old version meanwhile, or give it back with \`coder templates edit <template> --require-active-version=false\``;
  return line; // refused, not held, declined: said in the note
}

/** `fleet status` in words; `nowMs` dates the daemons' reading. */
export function statusText(s: FleetStatus, nowMs = Date.now()): string {
  if (s.progress) {
    const p = s.progress;
    const waits = s.waitingOn ?? [];
    const lines = [`${s.workflowId}: ${p.phase}`, `  ${progressLine(p, waits)}`];
    for (const line of waitLines(waits.filter((w) => !isPersonWait(w)))) lines.push(`  ${line}`);
    const rollbacks = rollbacksNote(ranCountsOf(p.counts), s.workflowId);
    if (rollbacks) lines.push(`  ${rollbacks}`);
    const phases = Object.entries(s.runningByPhase ?? {});
    if (phases.length) lines.push(`  running by phase: ${phases.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (p.pacing) lines.push(`  ${pacingLine(p.pacing, nowMs).replace(/\*\*/g, '')}`);
    if (p.pendingApproval) {
      lines.push(`  waiting for approval of '${p.pendingApproval.gateId}' since ${p.pendingApproval.requestedAt}: ${p.pendingApproval.summary}`);
      lines.push(`    approvers: ${whoMayApprove(p.pendingApproval)}`);
      lines.push(`    ${approvalCommands(s.workflowId, p.pendingApproval).cli}`);
    }
    for (const a of p.childApprovals.slice(0, 10)) {
      const said = waits.find((w) => w.kind === 'child-gate' && w.workflowId === a.workflowId && w.gateId === a.gateId);
      const approvers = said?.kind === 'child-gate' && said.approvers ? ` (approvers: ${said.approvers})` : '';
      lines.push(`  ${a.workflowId} waits for '${a.gateId}': wsmigrate approve ${a.workflowId} --approver <you>${approvers}`);
    }
    for (const f of p.failures.slice(-10)) lines.push(`  ${f.subject}: ${f.outcome}: ${failureReason(f)}`);
    for (const d of (p.declines ?? []).slice(-10)) lines.push(`  ${d.subject}: declined: ${failureReason(d)}`);
    for (const k of (p.skips ?? []).slice(-10)) lines.push(`  ${k.subject}: ${k.reason}`);
    // What the Web UI details say of a running fleet too: who holds members to the active version, and the
    // fleet's note (the setting not held on AGPL, a rollback that paused it and what to promote, a give-back that failed).
    const ended = p.phase === 'done' || p.phase === 'cancelled' || p.phase === 'failed';
    const lock = activeVersionLockLine(p.activeVersionLock, ended);
    if (lock) lines.push(`  ${lock}`);
    if (p.note) lines.push(`  note: ${p.note}`);
    return lines.join('\n');
  }
  if (s.result) return `${s.workflowId}: ${s.phase}\n${summaryTable(s.result)}`;
  if (s.unanswered) return [`${s.workflowId}: ${s.phase}`, ...waitLines(s.waitingOn ?? []).map((l) => `  ${l}`)].join('\n');
  return endedRunText(s);
}

/**
 * A fleet run that ended without a result: why, and for a terminated or timed-out one (which ran no
 * code at its end) what it left: the setting (leftLock) and the migrations it had started, which are
 * their own runs (ParentClosePolicy.ABANDON) and go on to their end.
 */
export function endedRunText(s: Pick<FleetStatus, 'workflowId' | 'phase' | 'error' | 'endedBy' | 'leftLock'>): string {
  const how = s.endedBy === 'terminated' ? 'terminated' : s.endedBy === 'timed-out' ? 'timed out' : s.phase;
  const children = s.endedBy
    ? `\nthe migrations it had started are runs of their own and go on to their end (each migrates its workspace or puts it back; one at a gate still waits for it): 'wsmigrate approvals' lists those waiting`
    : '';
  return `${s.workflowId}: ${how}${s.error ? `: ${s.error}` : ''}${s.leftLock ? `\n${s.leftLock}` : ''}${children}`;
}
