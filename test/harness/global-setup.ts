import { startDevServer, type DevServer } from '../../src/adapters/temporal-dev-server';
import { temporalCliPath } from '../../src/config/tools';
import { TEST_SERVER_DYNAMIC_CONFIG } from './temporal';

/**
 * One real Temporal dev server for the whole test run (never a mock). Test files find it through
 * TEMPORAL_ADDRESS, which Jest workers inherit. A TEMPORAL_ADDRESS set by the caller wins.
 * WSMIGRATE_UNIT_ONLY=1 skips the server for quick runs of pure unit tests.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEMPORAL_ADDRESS || process.env.WSMIGRATE_UNIT_ONLY === '1') return;
  const server = await startDevServer({ temporalBin: temporalCliPath(), dynamicConfig: TEST_SERVER_DYNAMIC_CONFIG });
  process.env.TEMPORAL_ADDRESS = server.address;
  (globalThis as { __wsmigrateDevServer?: DevServer }).__wsmigrateDevServer = server;
}
