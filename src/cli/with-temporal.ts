export type Client = import('@temporalio/client').Client;

/**
 * Connects for one command and closes afterwards. The Temporal SDK loads here, inside the action,
 * so offline commands and `--help` never pay for it.
 */
export async function withTemporal<T>(fn: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const [{ connectClient }, { loadConfig }] = await Promise.all([import('../client/temporal-client'), import('../config/env')]);
  const cfg = loadConfig();
  const { client, connection } = await connectClient(cfg);
  try {
    return await fn(client, cfg.taskQueue);
  } finally {
    await connection.close();
  }
}
