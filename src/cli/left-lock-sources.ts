import { CoderClient } from '../adapters/coder';
import { openBlobStore } from '../adapters/open-blob-store';
import type { Client } from '@temporalio/client';
import type { FleetStatus } from '../client/fleet';
import { withLeftLock, type LeftLockSources } from '../client/left-lock';
import { blobStoreSettings, loadConfig, type WsmigrateConfig } from '../config/env';

/** Coder and the blob store as this machine is configured: what `fleet status` reads of a terminated run's lock. */
export function leftLockSources(cfg: WsmigrateConfig): LeftLockSources {
  const coder =
    cfg.coderUrl && cfg.coderSessionToken
      ? new CoderClient({ url: cfg.coderUrl, token: cfg.coderSessionToken, userAgent: 'wsmigrate-cli', retry: { maxAttempts: 1 } })
      : { unavailable: 'CODER_URL and CODER_SESSION_TOKEN are not set here' };
  let blobs: LeftLockSources['blobs'];
  try {
    blobs = openBlobStore(blobStoreSettings(cfg));
  } catch {
    // no store here: the line says the mark could not be read
  }
  return { coder, ...(blobs ? { blobs } : {}), keeperSeconds: cfg.lockKeeperIntervalSeconds };
}

/** A terminated or timed-out fleet's status with what it left of require_active_version (other statuses as they are). */
export async function withLeftLockHere(client: Client, s: FleetStatus): Promise<FleetStatus> {
  return s.endedBy ? withLeftLock(client, s, leftLockSources(loadConfig())) : s;
}
