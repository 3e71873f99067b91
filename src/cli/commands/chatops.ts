import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/env';
import type { CliIo } from '../io';

export function registerChatopsCommand(program: Command, io: CliIo): void {
  program
    .command('chatops')
    .description('serve Slack approvals: the Approve/Reject buttons of wsmigrate messages and the /wsmigrate slash command')
    .option('--port <port>', 'listen on this port (default: WSMIGRATE_CHATOPS_PORT, 3100)')
    .option('--host <address>', 'listen on this address', '0.0.0.0')
    .addHelpText(
      'after',
      [
        '',
        'Point the Slack app\'s Interactivity Request URL and the /wsmigrate slash command at',
        '  https://<this host>/slack/events',
        '',
        'Needs SLACK_SIGNING_SECRET (every request is verified with it before anything else) and',
        'WSMIGRATE_SLACK_APPROVERS (Slack user id = approver name, e.g. U0123ABCD=alice,U0456EFGH=bob).',
        'The worker posts the messages (SLACK_BOT_TOKEN, SLACK_CHANNEL) and updates them when a gate closes.',
        '',
        'In Slack:  /wsmigrate approvals | status <id> | approve <id> | reject <id> [reason]',
      ].join('\n'),
    )
    .action(async (o: { port?: string; host: string }) => {
      const cfg = loadConfig();
      if (!cfg.slackSigningSecret) {
        throw new ConfigError(["SLACK_SIGNING_SECRET is not set; chatops refuses every request it cannot verify. Copy it from your Slack app's Basic Information page"]);
      }
      if (Object.keys(cfg.slackApprovers).length === 0) {
        io.err('wsmigrate chatops: WSMIGRATE_SLACK_APPROVERS is empty, so every approval from Slack will be refused (403); set e.g. WSMIGRATE_SLACK_APPROVERS=U0123ABCD=alice');
      }
      const port = o.port === undefined ? cfg.chatopsPort : Number(o.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError([`--port must be an integer from 1 to 65535 (got ${o.port})`]);
      const { processLogger } = await import('../process-logger');
      const logger = processLogger(cfg, 'chatops', [cfg.slackSigningSecret.reveal(), ...(cfg.slackBotToken ? [cfg.slackBotToken.reveal()] : [])]);
      const { connectClient } = await import('../../client/temporal-client');
      const { approvalGateway } = await import('../../client/approvals');
      const { startChatops } = await import('../../chatops/app');
      const { client, connection } = await connectClient(cfg);
      const chatops = await startChatops({
        signingSecret: cfg.slackSigningSecret,
        botToken: cfg.slackBotToken,
        slackApiUrl: cfg.slackApiUrl,
        port,
        host: o.host,
        slackApprovers: cfg.slackApprovers,
        gateway: approvalGateway(client),
        logger,
      });
      logger.info({ host: o.host, port: chatops.port, temporalAddress: cfg.temporalAddress, namespace: cfg.temporalNamespace }, `listening on ${o.host}:${chatops.port}/slack/events; Ctrl-C stops it`);
      await new Promise<void>((resolve) => {
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
      });
      await chatops.stop();
      await connection.close();
    });
}
