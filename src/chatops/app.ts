import { App, LogLevel, type Logger } from '@slack/bolt';
import type { ApprovalGateway } from '../client/approvals';
import type { Secret } from '../config/secret';
import { APPROVE_ACTION, REJECT_ACTION, decodeButtonValue } from '../domain/approval-button';
import type { Decision } from '../domain/approval-policy';
import type { ApprovalReceipt } from '../contracts/approval';
import { SignedSlackReceiver, type ChatopsLogger, type HttpReply } from './signed-receiver';

export type { ChatopsLogger };
import { ChatRefusal, decideFromSlack, type SlackDecisionRequest } from './slack-decision';
import { SLASH_USAGE, parseSlashCommand } from './slash-command';
import { describeStatus, describeWaiting } from './status-text';

export interface ChatopsOptions {
  signingSecret: Secret;
  botToken?: Secret;
  slackApiUrl?: string;
  port: number;
  host?: string;
  slackApprovers: Readonly<Record<string, string>>;
  gateway: ApprovalGateway;
  /** `processLogger(cfg, 'chatops')` in production: JSON lines, secrets scrubbed. */
  logger: ChatopsLogger;
  now?: () => number;
}

export interface Chatops {
  port: number;
  stop(): Promise<void>;
}

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => LogLevel.ERROR, setName() {} };

function receiptText(r: ApprovalReceipt, workflowId: string): string {
  return `${r.decision === 'approve' ? ':white_check_mark: Approved' : ':x: Rejected'} \`${r.gateId}\` of \`${workflowId}\` as *${r.approver}*.`;
}

/** A refusal answers with its status and reason; anything else is Temporal or wsmigrate failing. */
async function answer(reply: HttpReply, ack: (r: { response_type: 'ephemeral'; text: string }) => Promise<void>, work: () => Promise<string>): Promise<string> {
  let text: string;
  try {
    text = await work();
  } catch (err) {
    if (!(err instanceof ChatRefusal)) throw err;
    reply.status = err.status;
    text = `:no_entry: ${err.message}`;
  }
  await ack({ response_type: 'ephemeral', text });
  return text;
}

/**
 * `wsmigrate chatops`: Slack interactivity (the Approve / Reject buttons the notifier posts) and
 * the `/wsmigrate` slash command, on Bolt, through the same client door as the CLI. Generic over
 * workflow id and gate, so it serves every workflow that uses ApprovalGates.
 */
export async function startChatops(opts: ChatopsOptions): Promise<Chatops> {
  const receiver = new SignedSlackReceiver({ signingSecret: opts.signingSecret, port: opts.port, host: opts.host, logger: opts.logger, now: opts.now });
  const app = new App({
    receiver,
    // One workspace, one bot: no OAuth installs and no auth.test round trip at start.
    authorize: async () => (opts.botToken ? { botToken: opts.botToken.reveal() } : {}),
    logger: quiet,
    logLevel: LogLevel.ERROR,
    ...(opts.slackApiUrl ? { clientOptions: { slackApiUrl: opts.slackApiUrl } } : {}),
  });

  // The audit line of every decision chatops sends; refusals are logged by the receiver.
  const decide = async (req: SlackDecisionRequest): Promise<ApprovalReceipt> => {
    const r = await decideFromSlack(opts.gateway, opts.slackApprovers, req);
    opts.logger.info({ workflowId: req.workflowId, gateId: r.gateId, planHash: r.planHash, decision: r.decision, approver: r.approver, slackUserId: req.slackUserId }, 'decision sent');
    return r;
  };

  const onButton = (decision: Decision) =>
    app.action(decision === 'approve' ? APPROVE_ACTION : REJECT_ACTION, async ({ ack, body, action, context, respond }) => {
      const reply = context.httpReply as HttpReply;
      const text = await answer(reply, ack as never, async () => {
        const value = decodeButtonValue((action as { value?: unknown }).value);
        if (!value) throw new ChatRefusal(403, 'this button does not carry a wsmigrate workflow id, gate and plan hash');
        const receipt = await decide({
          slackUserId: body.user.id,
          workflowId: value.workflowId,
          decision,
          gateId: value.gateId,
          planHash: value.planHash,
          ...(decision === 'reject' ? { reason: 'rejected from Slack' } : {}),
        });
        return receiptText(receipt, value.workflowId);
      });
      // A click's HTTP reply is not shown in Slack: say it to the user who clicked, only to them.
      await respond({ response_type: 'ephemeral', replace_original: false, text }).catch(() => undefined);
    });
  onButton('approve');
  onButton('reject');

  app.command(/^\/wsmigrate/, async ({ ack, command, context }) => {
    const reply = context.httpReply as HttpReply;
    await answer(reply, ack as never, async () => {
      const cmd = parseSlashCommand(command.text ?? '');
      switch (cmd.kind) {
        case 'help':
          return cmd.problem ? `${cmd.problem}\n${SLASH_USAGE}` : SLASH_USAGE;
        case 'approvals':
          return describeWaiting(await opts.gateway.waiting());
        case 'status':
          try {
            return describeStatus(cmd.workflowId, await opts.gateway.status(cmd.workflowId));
          } catch (err) {
            if ((err as Error).name === 'MigrationNotFoundError') throw new ChatRefusal(404, (err as Error).message);
            throw err;
          }
        case 'approve':
        case 'reject': {
          const receipt = await decide({
            slackUserId: command.user_id,
            workflowId: cmd.workflowId,
            decision: cmd.kind,
            ...(cmd.kind === 'reject' && cmd.reason ? { reason: cmd.reason } : {}),
          });
          return receiptText(receipt, cmd.workflowId);
        }
      }
    });
  });

  const address = await receiver.start();
  return { port: address.port, stop: () => receiver.stop() };
}
