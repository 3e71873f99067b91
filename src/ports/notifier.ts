export type NotificationKind =
  | 'approval-requested'
  | 'approval-escalated'
  /** What the pending gate's summary described changed under it (someone built the workspace): its message is edited. */
  | 'approval-changed'
  | 'approval-timed-out'
  | 'approval-closed'
  | 'migration-failed'
  | 'migration-done'
  | 'restored'
  | 'replacements-detected'
  | 'fleet-canary-done'
  | 'fleet-budget-hit'
  /** Most of the fleet's migrations roll back (domain/fleet-rollbacks): said once a run, since rollbacks never stop it. */
  | 'fleet-rolling-back'
  | 'fleet-paused'
  | 'fleet-done';

export interface Notification {
  kind: NotificationKind;
  workflowId: string;
  subject: string;
  text: string;
  gateId?: string;
  planHash?: string;
  escalateTo?: string;
  /** On approval-requested and approval-escalated: who may decide, in words (the names, any name, or no one). */
  approvers?: string;
  /** On approval-closed: who decided, how, and what. */
  decision?: {
    approver: string;
    decision: 'approve' | 'reject';
    channel: 'cli' | 'signal' | 'slack' | 'ui';
    reason?: string;
    /** The rest of the receipt, so the history holds it for every channel (a signal has no update result). */
    slackUserId?: string;
    at?: string;
  };
  /** On approval events: when the gate opened (workflow time), for the time-to-decision metric. */
  requestedAt?: string;
  /** On fleet events: counts by outcome, for the message body. */
  counts?: Record<string, number>;
  /** Messages posted when the gate opened, so a chat backend edits them in place when it escalates or closes. */
  messageRefs?: MessageRef[];
}

/** Where a backend posted a message it may edit later (a Slack channel and message ts); never a credential. */
export interface MessageRef {
  backend: string;
  channel: string;
  ts: string;
}

/** What a delivery produced that a later notification needs (e.g. the posted message to update). */
export interface NotifyOutcome {
  messageRefs?: MessageRef[];
}

/** Where humans hear about approvals and outcomes (log, webhook, chat). */
export interface Notifier {
  notify(n: Notification): Promise<void | NotifyOutcome>;
}
