import { createLogger, type Logger } from '../adapters/logging/logger';
import type { WsmigrateConfig } from '../config/env';

/**
 * The logger of a long-running wsmigrate process (worker, codec server, chat bridge): JSON lines on
 * stderr, pretty on a terminal (WSMIGRATE_LOG_FORMAT decides when set), with every configured secret scrubbed in all the forms it could take.
 */
export function processLogger(cfg: WsmigrateConfig, component: string, extraSecrets: readonly string[] = []): Logger {
  const token = cfg.coderSessionToken?.reveal();
  const key = cfg.encryptionKey?.reveal();
  const secrets = [
    token,
    // Coder tokens are "<id>-<secret>": the secret half alone is just as sensitive.
    token && token.includes('-') ? token.slice(token.indexOf('-') + 1) : undefined,
    key,
    key ? Buffer.from(key, 'hex').toString('base64') : undefined,
    ...extraSecrets,
  ];
  return createLogger({ level: cfg.logLevel, secrets, base: { component }, ...(cfg.logFormat ? { pretty: cfg.logFormat === 'pretty' } : {}) });
}
