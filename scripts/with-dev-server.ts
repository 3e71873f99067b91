// Runs a command with one Temporal dev server for its whole life (TEMPORAL_ADDRESS set), then stops
// it. For `make mutate`: Stryker runs jest many times in one process, and jest's global setup
// starts a server only when TEMPORAL_ADDRESS is unset, so the runs must share one started here.
import { spawn } from 'node:child_process';
import { startDevServer } from '../src/adapters/temporal-dev-server';
import { temporalCliPath } from '../src/config/tools';

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (!command) throw new Error('usage: with-dev-server <command> [args…]');
  const server = await startDevServer({ temporalBin: temporalCliPath() });
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TEMPORAL_ADDRESS: server.address } });
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  await server.stop();
  process.exit(code);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
