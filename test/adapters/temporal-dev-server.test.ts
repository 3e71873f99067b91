import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../src/adapters/temporal-dev-server';
import { temporalCliPath } from '../../src/config/tools';

describe('the dev server wsmigrate starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-devserver-test-'));
  const dbFile = join(dir, 'temporal.db');
  let server: DevServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function withClient<T>(s: DevServer, use: (client: Client) => Promise<T>): Promise<T> {
    const connection = await Connection.connect({ address: s.address });
    try {
      return await use(new Client({ connection }));
    } finally {
      await connection.close();
    }
  }

  it('writes through a write-ahead log and keeps every started run when it is killed', async () => {
    server = await startDevServer({ temporalBin: temporalCliPath(), dbFile });
    await withClient(server, (client) => client.workflow.start('noWorkerRunsThis', { taskQueue: 'nobody', workflowId: 'survives-a-kill', args: [] }));
    expect(existsSync(`${dbFile}-wal`)).toBe(true);

    const killed = new Promise((r) => server!.process.once('exit', r));
    server.process.kill('SIGKILL');
    await killed;

    server = await startDevServer({ temporalBin: temporalCliPath(), dbFile });
    const run = await withClient(server, (client) => client.workflow.getHandle('survives-a-kill').describe());
    expect(run.status.name).toBe('RUNNING');
    expect(run.type).toBe('noWorkerRunsThis');
  }, 120_000);
});
