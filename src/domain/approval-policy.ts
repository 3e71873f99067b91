/**
 * Who must approve what before a workflow changes anything. Pure: the workflows hold the waiting,
 * this module holds the rules, so both the workflow's update validator and the tests use them.
 */
export type ApprovalPolicy = 'none' | 'destructive' | 'all';

/** A gate is a point in a workflow where it may stop and ask a human. */
export type GateId = 'stop' | 'apply' | 'start' | 'template-push' | 'template-promote' | 'canary' | FleetGateId;

/** The fleet's own gates: go on after the canary, go on past the failure budget, archive the old versions. */
export type FleetGateId = 'fleet-continue' | 'fleet-budget' | 'fleet-archive';

const DESTRUCTIVE_GATES: ReadonlySet<GateId> = new Set(['apply', 'template-promote', 'canary', 'fleet-continue', 'fleet-budget', 'fleet-archive']);

/** `destructive` asks before steps that change state or what users get; `all` asks before every change. */
export function gateRequiresApproval(policy: ApprovalPolicy, gate: GateId): boolean {
  if (policy === 'none') return false;
  if (policy === 'all') return true;
  return DESTRUCTIVE_GATES.has(gate);
}

export interface PendingApproval {
  gateId: GateId;
  /** Hash of exactly what is being approved (plan, state and version); an approval of anything else is refused. */
  planHash: string;
  summary: string;
  requestedAt: string;
  escalated: boolean;
}

export type Decision = 'approve' | 'reject';

export interface ApprovalInput {
  gateId: string;
  planHash: string;
  approver: string;
  decision: Decision;
  comment?: string;
}

/** Why an approval is refused, or undefined when it is valid for the pending gate. */
export function approvalRefusal(
  pending: PendingApproval | undefined,
  input: ApprovalInput,
  approvers: readonly string[],
): string | undefined {
  if (!input || typeof input !== 'object') return 'approval payload missing: send {gateId, planHash, approver, decision}';
  if (!pending) return `nothing is waiting for approval (gate '${input.gateId}' is not pending)`;
  if (typeof input.approver !== 'string' || input.approver.trim() === '') return 'approver is required';
  if (input.decision !== 'approve' && input.decision !== 'reject') {
    return `decision must be 'approve' or 'reject' (got '${String(input.decision)}')`;
  }
  if (approvers.length > 0 && !approvers.includes(input.approver)) {
    return `'${input.approver}' is not an approver for this run (allowed: ${approvers.join(', ')})`;
  }
  if (input.gateId !== pending.gateId) {
    return `gate '${input.gateId}' is not the pending gate '${pending.gateId}'`;
  }
  if (input.planHash !== pending.planHash) {
    return `plan hash ${input.planHash} does not match the pending plan ${pending.planHash}: re-read the status and approve what is pending now`;
  }
  return undefined;
}
