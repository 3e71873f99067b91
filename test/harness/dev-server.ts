import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { WSMIGRATE_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';

export interface DevServer {
  address: string;
  process: ChildProcess;
  dataDir: string;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `temporal server start-dev --headless` on a free loopback port with SQLite in a temp dir. */
export async function startDevServer(temporalBin: string): Promise<DevServer> {
  const port = await freeLoopbackPort();
  const dataDir = mkdtempSync(join(tmpdir(), 'wsmigrate-temporal-'));
  const args = [
    'server', 'start-dev', '--headless',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--db-filename', join(dataDir, 'temporal.db'),
    '--log-level', 'error',
    ...WSMIGRATE_SEARCH_ATTRIBUTES.flatMap((sa) => ['--search-attribute', `${sa.name}=Keyword`]),
  ];
  const child = spawn(temporalBin, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`temporal server start-dev exited with code ${child.exitCode} before answering:\n${stderr}`);
    }
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      await conn.workflowService.getSystemInfo({});
      await conn.close();
      return { address, process: child, dataDir };
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server on ${address} did not answer within 60s: ${(err as Error).message}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

export async function stopDevServer(server: DevServer): Promise<void> {
  if (server.process.exitCode === null) {
    const exited = new Promise((r) => server.process.once('exit', r));
    server.process.kill('SIGTERM');
    const timer = setTimeout(() => server.process.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(server.dataDir, { recursive: true, force: true });
}
