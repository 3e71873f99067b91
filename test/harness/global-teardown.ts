import { rmSync } from 'node:fs';
import type { DevServer } from '../../src/adapters/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __wsmigrateDevServer?: DevServer; __wsmigrateBundleDir?: string };
  await g.__wsmigrateDevServer?.stop();
  if (g.__wsmigrateBundleDir) rmSync(g.__wsmigrateBundleDir, { recursive: true, force: true });
}
