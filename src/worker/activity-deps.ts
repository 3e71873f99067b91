import type { ActivityDeps } from '../activities';
import { CoderClient } from '../adapters/coder';
import { openBlobStore } from '../adapters/open-blob-store';
import { createLogNotifier } from '../adapters/log-notifier';
import { blobStoreSettings, requireCoder, type WsmigrateConfig } from '../config/env';

/** The production adapters for the activities, from configuration. Tests build their own with the simulator. */
export function activityDepsFromConfig(cfg: WsmigrateConfig, overrides: Partial<ActivityDeps> = {}): ActivityDeps {
  const coder = overrides.coder ?? (() => {
    const c = requireCoder(cfg);
    return new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-worker' });
  })();
  return {
    coder,
    blobs: overrides.blobs ?? openBlobStore(blobStoreSettings(cfg)),
    notifier: overrides.notifier ?? createLogNotifier(),
    ...(overrides.importer ? { importer: overrides.importer } : {}),
  };
}
