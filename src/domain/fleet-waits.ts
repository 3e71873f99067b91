import { formatDuration } from './duration-text';

/**
 * What a fleet waits on, in the words the CLI, chat and the Web UI share: a person at a gate (its
 * own or a child's), an activity retrying against a Coder that fails, or a cancel or pause that
 * takes effect only once something else ends.
 */

export type FleetWait =
  | { kind: 'gate'; workflowId: string; gateId: string; since?: string }
  /** `approvers`: who may decide it, in words (whoMayApprove), when the child said. */
  | { kind: 'child-gate'; workflowId: string; gateId: string; since?: string; approvers?: string }
  | { kind: 'retrying'; workflowId: string; activity: string; attempt: number; maximumAttempts?: number; lastError?: string }
  /**
   * A running migration's (or the fleet's own) started step not heard from past the first-silence
   * window (client/run-waits.ts silentAfterMs): its worker may be gone; Temporal gives the step to
   * another worker once its heartbeat timeout passes.
   */
  | { kind: 'silent'; workflowId: string; activity: string; worker?: string; silentMs: number; heartbeatTimeoutMs?: number }
  /** Running migrations whose steps were not read (fleet status describes a bounded number of them). */
  | { kind: 'unread'; workflowId: string; count: number; read: number }
  | { kind: 'control'; action: 'cancel' | 'pause'; by: string; until: string }
  /** Paused: nothing new starts until someone resumes it, whatever the daemons or the running migrations do. */
  | { kind: 'paused'; workflowId: string; by: string; since: string; reason?: string; atGate?: string }
  /** No worker answers the run (none polls its task queue, or its query failed): it does not move until one does. */
  | { kind: 'no-worker'; workflowId: string; text: string };

/** `text`, cut at `max` characters with an ellipsis that says so. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A gate, a child's gate: nothing moves there without a person. */
export function isPersonWait(w: FleetWait): boolean {
  return w.kind === 'gate' || w.kind === 'child-gate';
}

/**
 * Whether the fleet as a whole waits on people: its own gate, or a child's gate while nothing else
 * runs (the template child, or every running migration at a gate). An ETA then means nothing.
 */
export function waitsOnPeople(s: { ownGate: boolean; stage: string; running: number; childrenAtGates: number }): boolean {
  if (s.ownGate) return true;
  if (s.childrenAtGates === 0) return false;
  return s.stage === 'template' || s.childrenAtGates >= s.running;
}

/** One line per wait, each with the command that ends it where there is one. */
export function waitLines(waits: readonly FleetWait[]): string[] {
  return waits.map((w) => {
    switch (w.kind) {
      case 'gate':
        return `waits for approval of '${w.gateId}'${w.since ? ` since ${w.since}` : ''}: wsmigrate approve ${w.workflowId} --approver <you>`;
      case 'child-gate':
        return `waits for ${w.workflowId} at '${w.gateId}'${w.since ? ` since ${w.since}` : ''}: wsmigrate approve ${w.workflowId} --approver <you>${w.approvers ? ` (approvers: ${w.approvers})` : ''}`;
      case 'retrying':
        return `waits on ${w.activity} of ${w.workflowId}, retrying: attempt ${w.attempt}${w.maximumAttempts ? ` of ${w.maximumAttempts}` : ''}${w.lastError ? `, last error: ${clip(w.lastError, 300)}` : ''}`;
      case 'silent': {
        const hb = w.heartbeatTimeoutMs;
        const due = hb !== undefined && w.silentMs >= hb;
        return (
          `${shortName(w.workflowId)}: step '${w.activity}' on ${w.worker ? `worker ${w.worker}` : 'its worker'} silent for ${formatDuration(w.silentMs)} (heartbeat timeout ${hb ? formatDuration(hb) : '2m unless the run set heartbeatTimeout'}): ` +
          (due ? 'Temporal retries it on another worker' : 'if that worker is gone, Temporal retries it on another worker once the heartbeat timeout has passed') +
          ` (wsmigrate status ${w.workflowId})`
        );
      }
      case 'unread':
        return `${w.count} more running migration(s) not read for stuck steps (the ${w.read} running longest were): wsmigrate status <id> reads one`;
      case 'control':
        return `${w.action} by ${w.by} pending until ${w.until}`;
      case 'paused':
        return `paused by ${w.by}${w.reason ? ` (${w.reason})` : ''} since ${w.since}: ${w.atGate ? `it still waits at '${w.atGate}'; once that is approved, ` : ''}no new migration starts until it is resumed: wsmigrate fleet resume ${w.workflowId} --by <you>`;
      case 'no-worker':
        return `waiting on: ${w.text}`;
    }
  });
}

/** `template coder/k8s-dev` for a template run, `alice/dev` for a workspace's: what fits in a bar. */
function shortName(workflowId: string): string {
  const parts = workflowId.split('/');
  return parts[0] === 'wsmigrate-template' ? `template ${parts.slice(1).join('/')}` : parts.slice(-2).join('/');
}

/** The short form for a progress bar: the first wait that a person or an outage explains. */
export function waitTag(waits: readonly FleetWait[]): string | undefined {
  const w = waits.find(isPersonWait) ?? waits.find((x) => x.kind === 'retrying') ?? waits.find((x) => x.kind === 'silent') ?? waits.find((x) => x.kind !== 'unread');
  if (!w) return undefined;
  if (w.kind === 'gate') return `awaiting '${w.gateId}'`;
  if (w.kind === 'child-gate') return `awaiting ${shortName(w.workflowId)} at '${w.gateId}'`;
  if (w.kind === 'paused') return `paused by ${w.by}`;
  if (w.kind === 'silent') return `${shortName(w.workflowId)} ${w.activity} silent ${formatDuration(w.silentMs)}`;
  if (w.kind === 'unread') return undefined;
  if (w.kind === 'no-worker') return 'no worker answers';
  if (w.kind === 'retrying') return `${w.activity} retrying (attempt ${w.attempt}${w.maximumAttempts ? `/${w.maximumAttempts}` : ''}${w.lastError ? `: ${clip(w.lastError, 80)}` : ''})`;
  return `${w.action} pending`;
}
