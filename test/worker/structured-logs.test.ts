import { randomBytes } from 'node:crypto';
import { startWorkspaceMigration } from '../../src/client/migrations';
import { createDataConverter } from '../../src/adapters/temporal/data-converter';
import { Client } from '@temporalio/client';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { createLogger } from '../../src/adapters/logging/logger';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { spawnCliWorker, workerEnvFor, type CliWorker } from './fixtures/cli-worker';

describe('structured logs', () => {
  it('scrubs known secrets from every line, whatever field or message carries them, and pretty-prints only on a terminal', () => {
    const token = 'AbCdEf1234-s3cr3tT0kenValue0123456789';
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', secrets: [token], destination: { write: (l) => void lines.push(l) } });
    logger.error({ err: new Error(`Coder said ${token} is bad`), sessionToken: 'x', nested: { token: 'y' }, url: `https://c/?t=${encodeURIComponent(token)}` }, `leak ${token}`);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'error', service: 'wsmigrate', msg: 'leak [redacted]', sessionToken: '[redacted]', nested: { token: '[redacted]' } });
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).not.toContain(Buffer.from(token).toString('base64'));

    // A worker's lifecycle word is shown; a Terraform state, under the same field name, never is.
    logger.info({ state: 'RUNNING' }, 'Worker state changed');
    logger.info({ state: '{"version":4,"resources":[{"type":"kubernetes_secret"}]}', nested: { state: { version: 4 } } }, 'a state');
    expect(JSON.parse(lines[1])).toMatchObject({ state: 'RUNNING' });
    expect(JSON.parse(lines[2])).toMatchObject({ state: '[redacted]', nested: { state: '[redacted]' } });

    const tty: string[] = [];
    createLogger({ level: 'info', destination: { write: (l) => void tty.push(l), isTTY: true } }).info({ workspace: 'alice/dev' }, 'hello');
    expect(() => JSON.parse(tty.join(''))).toThrow(); // human text, not JSON
    expect(tty.join('')).toMatch(/hello/);
  });

  describe('a worker process', () => {
    let env: MigrationEnv;
    let worker: CliWorker;
    const key = randomBytes(32);
    let client: Client;

    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 2, buildLatencyMs: 20 });
      client = new Client({ connection: env.t.connection, namespace: env.t.namespace, dataConverter: createDataConverter(key) });
      worker = await spawnCliWorker({
        ...workerEnvFor(env),
        WSMIGRATE_ENCRYPTION_KEY: key.toString('base64'),
        WSMIGRATE_METRICS_PORT: '0',
        WSMIGRATE_LOG_LEVEL: 'debug',
      });
    }, 180_000);
    afterAll(async () => {
      await worker?.stop();
      await env?.close();
    });

    it('writes one JSON object per line with workflow id, workspace and step, and no secret in any line', async () => {
      const ws = env.sim.workspaces()[0];
      const state = JSON.parse(env.sim.stateOf(ws.id)) as { resources: { type: string; instances: { attributes: Record<string, unknown> }[] }[] };
      const agentToken = state.resources.find((r) => r.type === 'coder_agent')?.instances[0].attributes.token as string;
      const tpl = await (
        await import('../../src/client/migrations')
      ).startTemplateMigration(client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
      const versionId = ((await tpl.result()) as { versionId: string }).versionId;
      const input = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'none' as const } };
      const ok = await startWorkspaceMigration(client, input, { taskQueue: env.taskQueue });
      expect(((await ok.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
      const other = env.sim.workspaces()[1];
      const bad = await startWorkspaceMigration(client, { ...input, owner: other.owner, workspace: other.name, targetVersionId: '00000000-0000-4000-8000-000000000000' }, { taskQueue: env.taskQueue });
      await failureOf(bad.result());
      await new Promise((r) => setTimeout(r, 500)); // let the last lines flush

      const lines = worker.output().split('\n').filter((l) => l.trim().length > 0);
      expect(lines.length).toBeGreaterThan(20);
      const parsed = lines.map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON line: ${l.slice(0, 200)}`);
        }
      });
      for (const p of parsed) expect(p).toMatchObject({ service: 'wsmigrate', component: 'worker', level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
      const subject = `${ws.owner}/${ws.name}`;
      expect(parsed.some((p) => p.workspace === subject && p.workflowId === ok.workflowId && p.step === 'buildWithStateAndCheck')).toBe(true);
      expect(parsed.some((p) => p.workspace === subject && p.notification === 'migration-done')).toBe(true);
      expect(parsed.some((p) => p.workflowId === bad.workflowId && (p.level === 'warn' || p.level === 'error'))).toBe(true);

      const token = env.sim.token;
      const secrets = [token, token.slice(token.indexOf('-') + 1), key.toString('hex'), key.toString('base64'), agentToken];
      for (const line of lines) for (const s of secrets) if (line.includes(s)) throw new Error(`secret found in log line: ${line.slice(0, 120)}…`);
    }, 180_000);
  });
});
