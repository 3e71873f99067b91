import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/adapters/temporal-dev-server';
import { temporalCliPath } from '../../src/config/tools';
import { TEST_SERVER_DYNAMIC_CONFIG } from './temporal';
import { TEST_BUNDLE_DIR_ENV } from './workflow-bundles';

/**
 * One real Temporal dev server for the whole test run (never a mock). Test files find it through
 * TEMPORAL_ADDRESS, which Jest workers inherit. A TEMPORAL_ADDRESS set by the caller wins.
 * WSMIGRATE_UNIT_ONLY=1 skips the server for quick runs of pure unit tests.
 * Also a folder for the run's workflow bundles (harness/workflow-bundles), removed at teardown.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.WSMIGRATE_UNIT_ONLY === '1') return;
  if (!process.env[TEST_BUNDLE_DIR_ENV]) {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-test-bundles-'));
    process.env[TEST_BUNDLE_DIR_ENV] = dir;
    (globalThis as { __wsmigrateBundleDir?: string }).__wsmigrateBundleDir = dir;
  }
  if (process.env.TEMPORAL_ADDRESS) return;
  const server = await startDevServer({ temporalBin: temporalCliPath(), dynamicConfig: TEST_SERVER_DYNAMIC_CONFIG });
  process.env.TEMPORAL_ADDRESS = server.address;
  (globalThis as { __wsmigrateDevServer?: DevServer }).__wsmigrateDevServer = server;
}
