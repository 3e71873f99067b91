import type { Logger } from '../../src/adapters/logging/logger';
import { startChatops, type Chatops } from '../../src/chatops/app';
import type { ApprovalGateway } from '../../src/client/approvals';
import type { WsmigrateConfig } from '../../src/config/env';

/** The chat bridge as `wsmigrate chatops` starts it from a configuration (cli/commands/chatops.ts), on a free local port. */
export async function startChatopsFromConfig(cfg: WsmigrateConfig, gateway: ApprovalGateway, logger: Logger): Promise<{ chatops: Chatops; url: string }> {
  const chatops = await startChatops({
    signingSecret: cfg.slackSigningSecret!,
    botToken: cfg.slackBotToken,
    slackApiUrl: cfg.slackApiUrl,
    port: 0,
    host: '127.0.0.1',
    slackApprovers: cfg.slackApprovers,
    gateway,
    logger,
  });
  return { chatops, url: `http://127.0.0.1:${chatops.port}/slack/events` };
}
