import type { DevServer } from '../../src/adapters/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __wsmigrateDevServer?: DevServer }).__wsmigrateDevServer?.stop();
}
