import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './free-port';
import { Connection } from '@temporalio/client';
import { WSMIGRATE_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';

export { freeLoopbackPort };

export interface DevServerOptions {
  temporalBin: string;
  /** gRPC port; 0 picks a free one. */
  port?: number;
  /** Web UI port; omitted = headless. */
  uiPort?: number;
  /** SQLite file; omitted = a file in a fresh temp dir removed on stop. */
  dbFile?: string;
  startTimeoutMs?: number;
  /** Register wsmigrate's search attributes at start (default); false gives a namespace no worker has prepared yet. */
  registerSearchAttributes?: boolean;
  /**
   * More `--dynamic-config-value` settings, after DEV_SERVER_TUNING (a later value of the same key wins);
   * none by default. The test suite's server uses it to fire short timers on time (test/harness/temporal.ts).
   */
  dynamicConfig?: ReadonlyArray<readonly [string, string]>;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Measured by bench/fleet (1,000 workspaces, 2 cores): the dev server's CPU per migrated workspace
 * fell from 0.10 to 0.07 s. SQLite's write-ahead log with `synchronous=normal` syncs at checkpoints,
 * not at every commit: a killed server keeps every committed write (only an OS crash or power loss
 * can drop the last ones, an acceptable risk for a dev server, never for production persistence).
 * One task-queue partition suits one or two workers; eager activities start on the worker that
 * scheduled them without a round trip through matching.
 */
export const DEV_SERVER_TUNING: ReadonlyArray<readonly [string, string]> = [
  ['--sqlite-pragma', 'journal_mode=wal'],
  ['--sqlite-pragma', 'synchronous=normal'],
  ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'],
  ['--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1'],
  ['--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1'],
];

/** Starts `temporal server start-dev` on loopback with SQLite and wsmigrate's search attributes, and waits until it answers. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const port = opts.port || (await freeLoopbackPort());
  const tempDir = opts.dbFile ? undefined : mkdtempSync(join(tmpdir(), 'wsmigrate-temporal-'));
  const dbFile = opts.dbFile ?? join(tempDir as string, 'temporal.db');
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--db-filename', dbFile,
    '--log-level', 'error',
    ...DEV_SERVER_TUNING.flatMap(([flag, value]) => [flag, value]),
    ...(opts.dynamicConfig ?? []).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]),
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
    ...(opts.registerSearchAttributes === false ? [] : WSMIGRATE_SEARCH_ATTRIBUTES).flatMap((sa) => ['--search-attribute', `${sa.name}=Keyword`]),
  ];
  const child = spawn(opts.temporalBin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const address = `127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`temporal server start-dev exited with code ${child.exitCode} before answering (is port ${port} in use?):\n${stderr}`);
    }
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      await conn.workflowService.getSystemInfo({});
      await conn.close();
      return { address, uiUrl: opts.uiPort ? `http://127.0.0.1:${opts.uiPort}` : undefined, process: child, stop };
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`temporal dev server on ${address} did not answer in time: ${(err as Error).message}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
