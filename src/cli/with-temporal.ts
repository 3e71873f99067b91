import type { Logger } from '../adapters/logging/logger';
import type { WsmigrateConfig } from '../config/env';

export type Client = import('@temporalio/client').Client;
type Connection = import('@temporalio/client').Connection;

/** How the connection authenticates, for the log: never the API key or the client key themselves. */
function authOf(cfg: WsmigrateConfig): string {
  if (cfg.temporalApiKey) return 'api-key';
  if (cfg.temporalTls?.clientCertPem) return 'mtls';
  return cfg.temporalTls ? 'tls' : 'none';
}

/** A client as the configuration says (address, TLS, API key, payload codec), logging where it connects. */
export async function connectForCommand(cfg: WsmigrateConfig, log?: Logger): Promise<{ client: Client; connection: Connection }> {
  const { connectClient } = await import('../client/temporal-client');
  log?.info({ address: cfg.temporalAddress, namespace: cfg.temporalNamespace, auth: authOf(cfg) }, 'connecting to Temporal');
  let connected: Awaited<ReturnType<typeof connectClient>>;
  try {
    connected = await connectClient(cfg);
  } catch (err) {
    const { CliError, describeError } = await import('./io');
    throw new CliError(describeError(err));
  }
  log?.debug('connected to Temporal');
  return connected;
}

/**
 * Connects for one command and closes afterwards. The Temporal SDK loads here, inside the action,
 * so offline commands and `--help` never pay for it.
 */
export async function withTemporal<T>(fn: (client: Client, taskQueue: string) => Promise<T>, log?: Logger): Promise<T> {
  const { loadConfig } = await import('../config/env');
  const cfg = loadConfig();
  const { client, connection } = await connectForCommand(cfg, log);
  try {
    return await fn(client, cfg.taskQueue);
  } finally {
    await connection.close();
  }
}

/** The run a start created (the SDK's handle carries it; the type we return does not say so). */
export function runIdOf(handle: { workflowId: string }): string | undefined {
  return (handle as { firstExecutionRunId?: string }).firstExecutionRunId;
}
