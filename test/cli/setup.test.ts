import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../src/adapters/temporal-dev-server';
import { main } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/io';
import { temporalCliPath } from '../../src/config/tools';
import { uniqueTaskQueue } from '../harness/temporal';

/** A namespace no worker has prepared: the dev server starts without wsmigrate's search attributes. */
let server: DevServer;
let connection: Connection;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = await startDevServer({ temporalBin: temporalCliPath(), registerSearchAttributes: false });
  connection = await Connection.connect({ address: server.address });
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = 'default';
  process.env.WSMIGRATE_TASK_QUEUE = uniqueTaskQueue('setup');
}, 120_000);

afterAll(async () => {
  process.env = savedEnv;
  await connection?.close();
  await server?.stop();
});

async function wsmigrate(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const customAttributes = async () => Object.keys((await connection.operatorService.listSearchAttributes({ namespace: 'default' })).customAttributes ?? {});

describe('a namespace where no worker has run yet', () => {
  test('a start says which search attribute is missing and names `wsmigrate setup`; after setup it starts', async () => {
    expect(await customAttributes()).not.toContain('WsmigrateTemplate');

    const refused = await wsmigrate('migrate', 'template', '--org', 'coder', 'k8s-dev', '--approver', 'sre');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('Failed to start Workflow');
    expect(refused.err).toContain("no search attribute 'WsmigrateTemplate' registered");
    expect(refused.err).toContain("Run 'wsmigrate setup'");

    const setup = await wsmigrate('setup', '--json');
    expect(setup.code).toBe(0);
    const report = JSON.parse(setup.out) as { registered: string[]; searchAttributes: string[] };
    expect(report.registered).toEqual(expect.arrayContaining(['WsmigrateTemplate', 'WsmigratePhase', 'WsmigratePendingApproval']));
    expect(await customAttributes()).toEqual(expect.arrayContaining(report.searchAttributes));

    const again = await wsmigrate('setup');
    expect(again.out).toContain('nothing to do');

    const started = await wsmigrate('migrate', 'template', '--org', 'coder', 'k8s-dev', '--approver', 'sre');
    expect(started.err).toBe('');
    expect(started.out).toContain('started wsmigrate-template/coder/k8s-dev');
    await new Client({ connection }).workflow.getHandle('wsmigrate-template/coder/k8s-dev').terminate('test done; no worker runs here');
  }, 120_000);
});
