import type { ActivityDeps } from '../activities';
import { CoderClient } from '../adapters/coder';
import type { CoderCallObserver } from '../adapters/coder/call-observer';
import { openBlobStore } from '../adapters/open-blob-store';
import { notifierFromConfig } from '../adapters/notify/from-config';
import { blobStoreSettings, requireCoder, type WsmigrateConfig } from '../config/env';

/** The production adapters for the activities, from configuration. Tests build their own with the simulator. */
export function activityDepsFromConfig(
  cfg: WsmigrateConfig,
  overrides: Partial<ActivityDeps> = {},
  hooks: { observeCoderCall?: CoderCallObserver } = {},
): ActivityDeps {
  const coder = overrides.coder ?? (() => {
    const c = requireCoder(cfg);
    return new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-worker', observer: hooks.observeCoderCall });
  })();
  return {
    coder,
    blobs: overrides.blobs ?? openBlobStore(blobStoreSettings(cfg)),
    notifier: overrides.notifier ?? notifierFromConfig(cfg).notifier,
    ...(overrides.importer ? { importer: overrides.importer } : {}),
    ...(overrides.metrics ? { metrics: overrides.metrics } : {}),
  };
}
