import type { Command } from 'commander';
import type { CliIo } from '../io';
import type { DemoOptions } from './demo-run';

export function registerDemoCommands(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('run everything locally: Temporal dev server + Web UI, the Coder simulator, a worker, and migrateFleet on 50 workspaces')
    .option('--workspaces <n>', 'simulated workspaces', '50')
    .option('--port <port>', 'Temporal gRPC port', '7233')
    .option('--ui-port <port>', 'Temporal Web UI port', '8233')
    .option('--sim-port <port>', 'Coder simulator port (0 = any free port)', '0')
    .option('--concurrency <n>', 'workspaces migrated at once after the canary', '10')
    .option('--canary <k>', 'workspaces migrated first, before the fleet-continue gate', '3')
    .option('--interactive', 'do not approve the gates: a person does, with `wsmigrate approve` or in the Web UI', false)
    .option('--dir <path>', 'where the demo keeps its Temporal database and state backups', '.wsmigrate/demo')
    .option('--zero-touch', 'a fleet that migrates itself: the zero-touch version, pinned starts for running workspaces, stopped ones migrate at their owner\'s next start', false)
    .option('--exit-when-done', 'stop everything after the migration instead of waiting for Ctrl-C', false)
    .addHelpText('after', '\nExample:\n  wsmigrate demo --workspaces 20 --interactive --port 7300 --ui-port 8300   # beside another Temporal on 7233\n\nThen open the Web UI it prints (http://127.0.0.1:8233, or --ui-port) to see each workflow, its history, approvals and search attributes.')
    .action(async (o: DemoOptions) => (await import('./demo-run')).runDemo(io, o));
}
