import { createLogger, type Logger } from '../adapters/logging/logger';
import type { WsmigrateConfig } from '../config/env';
import { secretForms } from './cli-logger';

/**
 * The logger of a long-running wsmigrate process (worker, codec server, chat bridge): JSON lines on
 * stderr, pretty on a terminal (WSMIGRATE_LOG_FORMAT decides when set), with every configured secret scrubbed in all the forms it could take.
 */
export function processLogger(cfg: WsmigrateConfig, component: string, extraSecrets: readonly string[] = []): Logger {
  const secrets = secretForms(cfg.coderSessionToken?.reveal(), cfg.encryptionKey?.reveal(), extraSecrets);
  return createLogger({ level: cfg.logLevel, secrets, base: { component }, ...(cfg.logFormat ? { pretty: cfg.logFormat === 'pretty' } : {}) });
}
