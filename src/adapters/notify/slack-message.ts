import type { Notification } from '../../ports/notifier';
import { APPROVE_ACTION, REJECT_ACTION, encodeButtonValue } from '../../domain/approval-button';

/** Slack mrkdwn treats &, < and > as markup; summaries come from templates and workspace names. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type Block = Record<string, unknown>;

const ICON: Partial<Record<Notification['kind'], string>> = {
  'approval-requested': ':raising_hand:',
  'approval-escalated': ':alarm_clock:',
  'approval-changed': ':warning:',
  'approval-timed-out': ':hourglass:',
  'migration-failed': ':rotating_light:',
  'migration-done': ':white_check_mark:',
  restored: ':leftwards_arrow_with_hook:',
  'replacements-detected': ':warning:',
  'fleet-canary-done': ':hatching_chick:',
  'fleet-budget-hit': ':no_entry:',
  'fleet-rolling-back': ':leftwards_arrow_with_hook:',
  'fleet-paused': ':double_vertical_bar:',
  'fleet-done': ':checkered_flag:',
};

function headline(n: Notification): string {
  if (n.kind === 'approval-closed' && n.decision) {
    const icon = n.decision.decision === 'approve' ? ':white_check_mark:' : ':x:';
    const verb = n.decision.decision === 'approve' ? 'Approved' : 'Rejected';
    const reason = n.decision.reason ? ` — "${escape(n.decision.reason)}"` : '';
    return `${icon} *${verb}* \`${escape(n.gateId ?? '')}\` by *${escape(n.decision.approver)}* (via ${n.decision.channel})${reason}`;
  }
  return `${ICON[n.kind] ?? ':information_source:'} *${escape(n.subject)}*`;
}

/** The message for one notification; approval requests (and escalations) carry Approve / Reject buttons. */
export function slackMessage(n: Notification): { text: string; blocks: Block[] } {
  const lines = [headline(n), `\`${escape(n.workflowId)}\``, escape(n.text)];
  // An open gate says on whom it waits.
  if (n.approvers && (n.kind === 'approval-requested' || n.kind === 'approval-escalated' || n.kind === 'approval-changed')) lines.push(`Approvers: ${escape(n.approvers)}`);
  if (n.kind === 'approval-escalated' && n.escalateTo) lines.push(`Escalated to ${escape(n.escalateTo)}.`);
  if (n.counts) lines.push(Object.entries(n.counts).map(([k, v]) => `${escape(k)}: *${v}*`).join(' · '));
  const blocks: Block[] = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
  if (n.gateId || n.planHash) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `gate \`${escape(n.gateId ?? '-')}\` · plan \`${escape(n.planHash ?? '-')}\`` }] });
  }
  const open = n.kind === 'approval-requested' || n.kind === 'approval-escalated' || n.kind === 'approval-changed';
  if (open && n.gateId && n.planHash) {
    const value = encodeButtonValue({ workflowId: n.workflowId, gateId: n.gateId, planHash: n.planHash });
    blocks.push({
      type: 'actions',
      block_id: 'wsmigrate_decision',
      elements: [
        { type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value },
        {
          type: 'button',
          action_id: REJECT_ACTION,
          style: 'danger',
          text: { type: 'plain_text', text: 'Reject' },
          value,
          confirm: {
            ...rejectConfirmation(n.gateId),
            confirm: { type: 'plain_text', text: 'Reject' },
            deny: { type: 'plain_text', text: 'Cancel' },
          },
        },
      ],
    });
  }
  const text =
    n.kind === 'approval-closed' && n.decision
      ? `${n.decision.decision === 'approve' ? 'Approved' : 'Rejected'} by ${n.decision.approver}: ${n.subject}`
      : n.kind === 'approval-escalated' && n.escalateTo
        ? `${n.subject} (escalated to ${n.escalateTo})`
        : n.subject;
  return { text: escape(text), blocks };
}

/** What a rejection does, said before the click: a fleet gate cancels or skips, a migration's gate restores. */
function rejectConfirmation(gateId: string): { title: Block; text: Block } {
  if (gateId === 'fleet-archive') {
    return { title: { type: 'plain_text', text: 'Keep the old versions?' }, text: { type: 'mrkdwn', text: 'The fleet ends without archiving the old template versions.' } };
  }
  if (gateId.startsWith('fleet-')) {
    return { title: { type: 'plain_text', text: 'Cancel the fleet?' }, text: { type: 'mrkdwn', text: 'No new migration starts; running ones finish (or restore), and the fleet ends cancelled.' } };
  }
  return { title: { type: 'plain_text', text: 'Reject and restore?' }, text: { type: 'mrkdwn', text: 'The migration stops here and the workspace is restored to its backed-up state.' } };
}
