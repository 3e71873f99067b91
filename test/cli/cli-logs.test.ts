import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Command } from 'commander';
import { reportFailure, secretsInEnv } from '../../src/cli/cli-logger';
import type { CliIo } from '../../src/cli/io';
import { main } from '../../src/cli/main';
import { migrationStatus } from '../../src/client/migrations';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { itNeeds } from '../harness/needs-tool';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `wsmigrate <args>` in its own process, stdout and stderr pipes (not terminals), as CI or a log shipper runs it. */
function wsmigrate(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`wsmigrate ${args.join(' ')} did not end in time:\n${stderr}`));
    }, 90_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

type Line = Record<string, unknown>;

/** Every stderr line as an object; a line that is not JSON fails the test, naming it. */
function logLines(r: Run): Line[] {
  return r.stderr
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`stderr line is not JSON: ${l.slice(0, 200)}`);
      }
    });
}

describe('one-shot CLI commands log JSON lines on stderr and keep stdout for the result', () => {
  let env: MigrationEnv;
  let version: string;
  let childEnv: Record<string, string>;
  let fakeCoder: Server;
  let fakeCoderUrl: string;
  const key = randomBytes(32);
  const slackSecret = randomBytes(16).toString('hex');
  const slackBotToken = `xoxb-${randomBytes(12).toString('hex')}`;
  const runs: Run[] = [];
  const run = async (extraEnv: Record<string, string>, ...args: string[]) => {
    const r = await wsmigrate({ ...childEnv, ...extraEnv }, ...args);
    runs.push(r);
    return r;
  };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 }, { encryptionKey: key });
    await env.startWorker();
    version = (await env.migrateTemplate()).versionId;
    childEnv = {
      TEMPORAL_ADDRESS: env.t.address,
      TEMPORAL_NAMESPACE: env.t.namespace,
      WSMIGRATE_TASK_QUEUE: env.taskQueue,
      CODER_URL: env.sim.url,
      CODER_SESSION_TOKEN: env.sim.token,
      WSMIGRATE_ENCRYPTION_KEY: key.toString('base64'),
      WSMIGRATE_BLOB_DIR: env.blobDir,
      SLACK_SIGNING_SECRET: slackSecret,
      SLACK_BOT_TOKEN: slackBotToken,
    };
    // A Coder (or a proxy in front of it) whose 401 quotes the token it was given: the error text carries it.
    fakeCoder = createServer((req, res) => {
      const presented = String(req.headers['coder-session-token'] ?? '');
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `API key "${presented}" is invalid`, detail: `key ${presented.slice(presented.indexOf('-') + 1)} expired` }));
    });
    await new Promise<void>((resolve) => fakeCoder.listen(0, '127.0.0.1', resolve));
    fakeCoderUrl = `http://127.0.0.1:${(fakeCoder.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    await new Promise((resolve) => fakeCoder?.close(resolve));
    await env?.close();
  });

  it('migrate, approve, status and a waited migration: events with their context on stderr, results on stdout; failures are one JSON error line; no secret anywhere', async () => {
    const [first, second] = env.sim.workspaces();
    const template = env.sim.template.name;
    const workflowId = `wsmigrate/${template}/${first.owner}/${first.name}`;
    const subject = `${first.owner}/${first.name}`;

    // migrate: stdout unchanged, stderr says where it connected and which run it started.
    const started = await run({}, 'migrate', 'workspace', subject, '--template', template, '--version', version, '--approval', 'all', '--approver', 'sre');
    expect(started.code).toBe(0);
    expect(started.stdout.split('\n')[0]).toBe(`started ${workflowId}`);
    const startLog = logLines(started);
    expect(startLog).toContainEqual(
      expect.objectContaining({ level: 'info', component: 'cli', command: 'migrate workspace', workspace: subject, template, msg: 'connecting to Temporal', address: env.t.address, namespace: env.t.namespace, auth: 'none' }),
    );
    expect(startLog).toContainEqual(expect.objectContaining({ msg: 'workflow started', workflowId, workspace: subject, runId: expect.stringMatching(/^[0-9a-f-]{36}$/) }));

    // approve: the decision, its gate and approver on the log line.
    await waitFor(async () => (await migrationStatus(env.t.client, workflowId)).pendingApproval !== undefined, 90_000);
    const gate = (await migrationStatus(env.t.client, workflowId)).pendingApproval!.gateId;
    const approved = await run({}, 'approve', workflowId, '--approver', 'sre');
    expect(approved.code).toBe(0);
    expect(approved.stdout.trim()).toBe(`approved '${gate}' of ${workflowId} as sre`);
    expect(logLines(approved)).toContainEqual(expect.objectContaining({ command: 'approve', msg: 'approval sent', workflowId, workspace: subject, template, gate, approver: 'sre', decision: 'approve' }));

    // status --json: stdout is exactly the JSON a script parses; the log stays on stderr.
    const status = await run({}, 'status', workflowId, '--json');
    expect(status.code).toBe(0);
    expect((JSON.parse(status.stdout) as { phase: string }).phase).toEqual(expect.any(String));
    expect(logLines(status)).toContainEqual(expect.objectContaining({ command: 'status', workflowId, msg: 'connecting to Temporal' }));
    await env.t.client.workflow.getHandle(workflowId).terminate('test done with it');

    // --wait: the log says it waits and how the run ended; stdout is the result.
    const waited = await run({}, 'migrate', 'workspace', `${second.owner}/${second.name}`, '--template', template, '--version', version, '--approval', 'none', '--wait');
    expect(waited.code).toBe(0);
    const secondId = `wsmigrate/${template}/${second.owner}/${second.name}`;
    expect(waited.stdout).toMatch(/"outcome": "migrated"/);
    const waitedMsgs = logLines(waited).map((l) => [l.msg, l.workflowId]);
    expect(waitedMsgs).toEqual(expect.arrayContaining([['workflow started', secondId], ['waiting for result', secondId], ['workflow finished', secondId]]));
    expect(logLines(waited)).toContainEqual(expect.objectContaining({ msg: 'workflow finished', outcome: 'migrated' }));

    // A CODER_URL with the token pasted into it, at a Coder whose 401 quotes the token: exit code as
    // before, one JSON error line, the token scrubbed from the URL on the info line and from the error.
    const token = env.sim.token;
    const refused = await run({ CODER_URL: `${fakeCoderUrl}/${token}/` }, 'scan', '--template', template);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const refusedLog = logLines(refused);
    expect(refusedLog).toContainEqual(expect.objectContaining({ level: 'info', command: 'scan', template, msg: 'reading workspaces from Coder', coderUrl: `${fakeCoderUrl}/[redacted]/` }));
    const error = refusedLog[refusedLog.length - 1];
    expect(error).toMatchObject({ level: 'error', component: 'cli', command: 'scan', template, exitCode: 1 });
    expect(error.msg).toMatch(/401 Unauthorized.*API key "\[redacted\]" is invalid.*key \[redacted\] expired/);

    // The key in an error's text (a ref typed from the wrong variable): scrubbed too, in hex.
    const wrongRef = await run({}, 'backups', 'show', `sha256:${key.toString('hex')}`);
    expect(wrongRef.code).toBe(1);
    const wrongRefError = logLines(wrongRef).pop();
    expect(wrongRefError).toMatchObject({ level: 'error', command: 'backups show', exitCode: 1 });
    expect(wrongRefError?.msg).toMatch(/sha256\/\[redacted\].* does not exist/);

    // A usage error keeps its exit code (2) and is a JSON line as well.
    const usage = await run({}, 'scan', '--template', template, '--concurrency', '0');
    expect(usage.code).toBe(2);
    expect(logLines(usage)).toEqual([expect.objectContaining({ level: 'error', command: 'scan', exitCode: 2, msg: "--concurrency must be a positive integer, got '0'" })]);

    // Every line of every JSON run: the common fields.
    for (const r of runs) {
      for (const line of logLines(r)) {
        expect(line).toMatchObject({ service: 'wsmigrate', component: 'cli', command: expect.any(String), level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
      }
    }

    // WSMIGRATE_LOG_FORMAT=pretty: text for a person, the failure as the one human line, still scrubbed.
    const pretty = await run({ CODER_URL: `${fakeCoderUrl}/${token}/`, WSMIGRATE_LOG_FORMAT: 'pretty' }, 'scan', '--template', template);
    expect(pretty.code).toBe(1);
    expect(pretty.stderr).toMatch(/INFO.*reading workspaces from Coder.*\[redacted\]/);
    expect(pretty.stderr).toMatch(/^wsmigrate: Could not .*401 Unauthorized.*\[redacted\]/m);
    expect(() => logLines(pretty)).toThrow(/not JSON/);

    const secrets = [token, token.slice(token.indexOf('-') + 1), key.toString('hex'), key.toString('base64'), slackSecret, slackBotToken];
    for (const r of runs) {
      for (const s of secrets) {
        if (r.stderr.includes(s) || r.stdout.includes(s)) throw new Error(`a secret reached the output of a CLI run:\n${r.stderr.slice(0, 500)}`);
      }
    }
  }, 300_000);
});

describe('a Temporal that cannot be reached', () => {
  it('ends with one error line naming the address and what to do, exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    // The command and the worker (below) each wait out the client's connect deadline: both at once.
    const [r, worker] = await Promise.all([
      wsmigrate({ TEMPORAL_ADDRESS: address, CODER_URL: 'http://127.0.0.1:9', CODER_SESSION_TOKEN: 'AbCdEf1234-s3cr3tT0ken' }, 'status', 'wsmigrate/k8s/alice/dev'),
      wsmigrate({ TEMPORAL_ADDRESS: address, CODER_URL: 'http://127.0.0.1:9', CODER_SESSION_TOKEN: 'AbCdEf1234-s3cr3tT0ken', WSMIGRATE_METRICS_PORT: '0' }, 'worker'),
    ]);
    expect(r.code).toBe(1);
    const error = logLines(r).find((l) => l.level === 'error');
    expect(error?.msg).toMatch(new RegExp(`Cannot reach Temporal at ${address.replace(/\./g, '\\.')} .*TEMPORAL_ADDRESS.*wsmigrate setup`));
    expect(r.stdout).toBe('');

    // The worker too: not the SDK's bare "Failed to connect before the deadline".
    expect(worker.code).toBe(1);
    expect(logLines(worker).find((l) => l.level === 'error')?.msg).toMatch(new RegExp(`Cannot reach Temporal at ${address.replace(/\./g, '\\.')} .*TEMPORAL_ADDRESS.*wsmigrate setup`));
  }, 90_000);
});

describe('the error that ends a command', () => {
  const token = 'AbCdEf1234-s3cr3tT0kenValue0123456789';
  const key = randomBytes(32);
  const env = { CODER_SESSION_TOKEN: token, WSMIGRATE_ENCRYPTION_KEY: key.toString('hex') };
  const collect = (isTTY: boolean) => {
    const err: string[] = [];
    const log: string[] = [];
    const io: CliIo = { out: () => undefined, err: (t) => void err.push(t), log: { write: (l: string) => void log.push(l), isTTY } };
    return { io, err, log };
  };
  const status = () => new Command('wsmigrate').addCommand(new Command('status').argument('<workflow-id>')).commands[0];
  const leaky = `Coder refused ${token}; key ${key.toString('base64')}`;

  it('on a terminal is the one human line, scrubbed; nothing on the log', async () => {
    const c = collect(true);
    await reportFailure(c.io, status(), leaky, 3, env);
    expect(c.err).toEqual(['wsmigrate: Coder refused [redacted]; key [redacted]']);
    expect(c.log).toEqual([]);
  });

  it('piped is one JSON line with level, msg, exitCode and command; WSMIGRATE_LOG_FORMAT overrides the terminal guess', async () => {
    for (const [isTTY, extra] of [[false, {}], [true, { WSMIGRATE_LOG_FORMAT: 'json' }]] as const) {
      const c = collect(isTTY);
      await reportFailure(c.io, status(), leaky, 3, { ...env, ...extra });
      expect(c.err).toEqual([]);
      expect(c.log).toHaveLength(1);
      expect(JSON.parse(c.log[0])).toMatchObject({ level: 'error', component: 'cli', command: 'status', exitCode: 3, msg: 'Coder refused [redacted]; key [redacted]' });
    }
    const forcedPretty = collect(false);
    await reportFailure(forcedPretty.io, status(), leaky, 3, { ...env, WSMIGRATE_LOG_FORMAT: 'pretty' });
    expect(forcedPretty.err).toEqual(['wsmigrate: Coder refused [redacted]; key [redacted]']);
  });

  it('knows the key in every form whichever form it was given in, and the secret half of the token', () => {
    for (const given of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      const secrets = secretsInEnv({ CODER_SESSION_TOKEN: token, WSMIGRATE_ENCRYPTION_KEY: given, SLACK_SIGNING_SECRET: 'sig', TEMPORAL_API_KEY: 'tak' });
      expect(secrets).toEqual(expect.arrayContaining([token, 's3cr3tT0kenValue0123456789', key.toString('hex'), key.toString('base64'), key.toString('base64url'), 'sig', 'tak']));
    }
  });

  it('main() reports a usage error raised while parsing options under the command that was typed, with exit code 2', async () => {
    const c = collect(false);
    expect(await main(['scan', '--template', 'k8s', '--concurrency', '0'], c.io)).toBe(2);
    expect(c.log.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({ level: 'error', command: 'scan', exitCode: 2 })]);
  });
});

describe('on a real terminal (a pseudo-terminal from script(1))', () => {
  const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  itNeeds(hasScript, 'script(1)', 'install util-linux (the CI image has it)')('the log is pretty text and the error the human line, exit code kept, key scrubbed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tty-'));
    const key = randomBytes(32).toString('hex');
    try {
      const r = spawnSync('script', ['-qec', `${process.execPath} -r @swc-node/register ${MAIN} backups show sha256:${key}`, '/dev/null'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WSMIGRATE_BLOB_DIR: dir, WSMIGRATE_ENCRYPTION_KEY: key },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      const text = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
      expect(text).toMatch(/INFO: reading backup \{"ref":"sha256:\[redacted\]"/);
      expect(text).toMatch(/^wsmigrate: blob .*sha256\/\[redacted\].* does not exist/m);
      expect(text).not.toMatch(/"level":/);
      expect(text).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
