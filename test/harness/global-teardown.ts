import { stopDevServer, type DevServer } from './dev-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __wsmigrateDevServer?: DevServer }).__wsmigrateDevServer;
  if (server) await stopDevServer(server);
}
