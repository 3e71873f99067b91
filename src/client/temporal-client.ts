import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { WsmigrateConfig } from '../config/env';
import { encryptionKeyBytes } from '../config/env';
import { clientDataConverter } from '../adapters/temporal/data-converter';

/**
 * Address, TLS (server CA, client certificate for mTLS, server name) and API key for every
 * connection wsmigrate makes: the CLI's, the worker's (native and admin) and the chat bridge's.
 */
export function temporalConnectionOptions(cfg: WsmigrateConfig): { address: string; tls?: TLSConfig; apiKey?: string } {
  const t = cfg.temporalTls;
  const tls: TLSConfig | undefined = t
    ? {
        ...(t.serverName ? { serverNameOverride: t.serverName } : {}),
        ...(t.caPem ? { serverRootCACertificate: t.caPem } : {}),
        ...(t.clientCertPem && t.clientKeyPem ? { clientCertPair: { crt: t.clientCertPem, key: Buffer.from(t.clientKeyPem.reveal()) } } : {}),
      }
    : undefined;
  return { address: cfg.temporalAddress, ...(tls ? { tls } : {}), ...(cfg.temporalApiKey ? { apiKey: cfg.temporalApiKey.reveal() } : {}) };
}

/** A connection to the configured Temporal frontend, with its TLS and API key; a failure says where and what to check. */
export async function connectTemporal(cfg: WsmigrateConfig): Promise<Connection> {
  try {
    return await Connection.connect(temporalConnectionOptions(cfg));
  } catch (err) {
    throw new Error(
      `Cannot reach Temporal at ${cfg.temporalAddress} (namespace ${cfg.temporalNamespace}): ${err instanceof Error ? err.message : String(err)}. ` +
        'Is the server running? Set TEMPORAL_ADDRESS (and TEMPORAL_TLS_* or TEMPORAL_API_KEY for a cluster); `wsmigrate setup` checks the connection.',
      { cause: err },
    );
  }
}

/** A client that encodes payloads exactly as the worker does (same key, same codec). */
export async function connectClient(cfg: WsmigrateConfig): Promise<{ client: Client; connection: Connection }> {
  const connection = await connectTemporal(cfg);
  const client = new Client({ connection, namespace: cfg.temporalNamespace, dataConverter: clientDataConverter(encryptionKeyBytes(cfg)) });
  return { client, connection };
}
