import { nearestKey } from './input-rules';
import type { LossKind } from './protected-loss';

/**
 * Who must approve what before a workflow changes anything. Pure: the workflows hold the waiting,
 * this module holds the rules, so both the workflow's update validator and the tests use them.
 */
export type ApprovalPolicy = 'none' | 'destructive' | 'all';

/** A gate is a point in a workflow where it may stop and ask a human. */
export type GateId = 'stop' | 'apply' | 'start' | 'template-push' | 'template-promote' | 'canary' | 'recover' | FleetGateId;

/** The fleet's own gates: go on after the canary, go on past the failure budget, archive the old versions. */
export type FleetGateId = 'fleet-continue' | 'fleet-budget' | 'fleet-archive';

const DESTRUCTIVE_GATES: ReadonlySet<GateId> = new Set(['apply', 'recover', 'template-promote', 'canary', 'fleet-continue', 'fleet-budget', 'fleet-archive']);

/** `destructive` asks before steps that change state or what users get; `all` asks before every change. */
export function gateRequiresApproval(policy: ApprovalPolicy, gate: GateId): boolean {
  if (policy === 'none') return false;
  if (policy === 'all') return true;
  return DESTRUCTIVE_GATES.has(gate);
}

/**
 * Why a recovery must wait for a person whatever the policy, or undefined when it is a plain repair.
 * A plain repair puts back entries the state forgot (the objects were never deleted) and its plan
 * passes the guard with nothing to ask: it is then no more than a migration, and follows the
 * run's policy. That is what a guarded build leaves when Coder builds an unmigrated workspace on
 * the new version (an owner's Update, or autostart once the template requires its active version),
 * so a fleet run with policy none puts those right itself instead of waiting on nobody.
 */
export function recoveryNeedsPerson(lossKinds: readonly LossKind[], verdict: 'allow' | 'needs-approval' | 'deny'): string | undefined {
  if (lossKinds.includes('destroyed')) return 'a protected object was destroyed';
  // The workspace may have run on the new object since: what it wrote there is not on the old one.
  if (lossKinds.includes('orphaned')) return 'a new object took a protected object\'s place: check which holds the data before the old one is put back';
  if (verdict !== 'allow') return `the guard's verdict is ${verdict}`;
  return undefined;
}

export interface PendingApproval {
  gateId: GateId;
  /** Hash of exactly what is being approved (plan, state and version); an approval of anything else is refused. */
  planHash: string;
  summary: string;
  requestedAt: string;
  escalated: boolean;
  /** Who may decide, so a chat bridge can refuse a non-approver before anything reaches the workflow. */
  approvers?: string[];
  anyApprover?: boolean;
}

/** Who may decide a pending gate, in words, so a wait says on whom: the names, anyone, or no one (it can only be rejected). */
export function whoMayApprove(p: Pick<PendingApproval, 'approvers' | 'anyApprover'>): string {
  if (p.anyApprover) return 'any name (the run was started with --any-approver)';
  const names = p.approvers ?? [];
  return names.length > 0 ? names.join(', ') : 'no one (the run names no approver and was not started with --any-approver): it can only be rejected';
}

export type Decision = 'approve' | 'reject';

/** How a decision arrived; `slack` is authenticated by Slack's request signature, the others by access to Temporal. */
export type ApprovalChannel = 'cli' | 'signal' | 'slack' | 'ui';
export const APPROVAL_CHANNELS: readonly ApprovalChannel[] = ['cli', 'signal', 'slack', 'ui'];

export interface ApprovalInput {
  gateId: string;
  planHash: string;
  approver: string;
  decision: Decision;
  comment?: string;
  /** Defaults to `cli` for the update and `signal` for the signal. */
  channel?: ApprovalChannel;
  /** The Slack user who clicked, when the channel is `slack`. */
  slackUserId?: string;
}

const APPROVAL_FIELDS: readonly (keyof ApprovalInput)[] = ['gateId', 'planHash', 'approver', 'decision', 'comment', 'channel', 'slackUserId'];

/** A field no approval has: a typo (`gateid`) would otherwise be refused as "gate 'undefined' is not the pending gate". */
function unknownFieldRefusal(input: object): string | undefined {
  const unknown = Object.keys(input).filter((k) => !(APPROVAL_FIELDS as readonly string[]).includes(k));
  if (unknown.length === 0) return undefined;
  const named = unknown.map((k) => {
    const near = nearestKey(k, APPROVAL_FIELDS);
    return near ? `'${k}' (did you mean ${near}?)` : `'${k}'`;
  });
  return `unknown field ${named.join(', ')}: an approval has ${APPROVAL_FIELDS.join(', ')}`;
}

/** An update's payload that is no object (a quoted string, an array, a number): spread, a string read as fields '0', '1', …. */
export function notAnObjectRefusal(input: unknown): string | undefined {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return undefined;
  const got = Array.isArray(input) ? 'an array' : input === null || input === undefined ? 'nothing' : `a ${typeof input}`;
  return `approval payload must be a JSON object: {"gateId": …, "planHash": …, "approver": …} (got ${got})`;
}

/**
 * The `approve` and `reject` updates take their decision from their name. A payload that says the
 * other (the signal's JSON, `"decision":"reject"`, sent as `--name approve`) is refused, never
 * recorded as the update's decision.
 */
export function updateDecisionRefusal(input: unknown, update: Decision): string | undefined {
  const said = input && typeof input === 'object' ? (input as { decision?: unknown }).decision : undefined;
  if (said === undefined || said === update) return undefined;
  return `the '${update}' update carries decision '${String(said)}': send the update named for your decision (--name approve or --name reject), or leave decision out`;
}

/** Who may decide at a run's gates. */
export interface ApproverRule {
  approvers: readonly string[];
  /** Only an explicit operator choice opens the gates to any name. */
  anyApprover?: boolean;
}

/** Why an approval is refused, or undefined when it is valid for the pending gate. */
export function approvalRefusal(
  pending: PendingApproval | undefined,
  input: ApprovalInput,
  rule: ApproverRule,
): string | undefined {
  const { approvers, anyApprover = false } = rule;
  if (!input || typeof input !== 'object') return 'approval payload missing: send {gateId, planHash, approver, decision}';
  const unknownField = unknownFieldRefusal(input);
  if (unknownField) return unknownField;
  if (!pending) return `nothing is waiting for approval (gate '${input.gateId}' is not pending)`;
  if (typeof input.approver !== 'string' || input.approver.trim() === '') return 'approver is required';
  if (input.decision !== 'approve' && input.decision !== 'reject') {
    return `decision must be 'approve' or 'reject' (got '${String(input.decision)}')`;
  }
  if (input.channel !== undefined && !APPROVAL_CHANNELS.includes(input.channel)) {
    return `channel must be one of ${APPROVAL_CHANNELS.join(', ')} (got '${String(input.channel)}')`;
  }
  if (approvers.length === 0 && !anyApprover && input.decision === 'approve') {
    // Rejecting is always safe (it restores), so only approving needs a named approver.
    return 'this run names no approver and was not started with --any-approver, so no one can approve it; reject it, or restart it with --approver';
  }
  if (approvers.length > 0 && !approvers.includes(input.approver)) {
    return `'${input.approver}' is not an approver for this run (allowed: ${approvers.join(', ')})`;
  }
  if (typeof input.gateId !== 'string' || input.gateId === '') {
    return `gateId is required: the pending gate is '${pending.gateId}' (its planHash is ${pending.planHash})`;
  }
  if (input.gateId !== pending.gateId) {
    return `gate '${input.gateId}' is not the pending gate '${pending.gateId}'`;
  }
  if (typeof input.planHash !== 'string' || input.planHash === '') {
    return `planHash is required: the pending plan of gate '${pending.gateId}' is ${pending.planHash} (what you approve; 'wsmigrate status' shows it)`;
  }
  if (input.planHash !== pending.planHash) {
    return `plan hash ${input.planHash} does not match the pending plan ${pending.planHash}: re-read the status and approve what is pending now`;
  }
  return undefined;
}
