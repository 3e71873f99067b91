import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../src/adapters/temporal-dev-server';
import { versitygwPath, VERSITYGW_VERSION } from '../../src/config/tools';

/** A real S3 server (versitygw, POSIX backend) on loopback over a temp dir. Never a mock. */
export interface S3TestServer {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  dataDir: string;
  /** The env a worker needs: credentials through the standard AWS variables only. */
  awsEnv: Record<string, string>;
  createBucket(name: string): Promise<void>;
  /** Stops the server (the data dir stays), to simulate an outage. */
  stop(): Promise<void>;
  /** Starts it again on the same port over the same data. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `describe` for tests that need versitygw. Without the binary they skip with a loud message, unless
 * CI is set: there the bootstrap builds it, so its absence is a failure, not a skip.
 */
export function describeWithS3(name: string, fn: () => void): void {
  if (versitygwPath() || process.env.CI) {
    describe(name, fn);
    return;
  }
  console.warn(
    `\n*** SKIPPING "${name}": versitygw ${VERSITYGW_VERSION} is not built. Run scripts/bootstrap-tools.sh (or set WSMIGRATE_VERSITYGW_BIN). ` +
      'Under CI=true these tests run and fail instead. ***\n',
  );
  describe.skip(name, fn);
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startS3TestServer(): Promise<S3TestServer> {
  const bin = versitygwPath();
  if (!bin) throw new Error(`versitygw ${VERSITYGW_VERSION} is not built (CI is set, so this fails instead of skipping): run scripts/bootstrap-tools.sh`);
  let port = await freeLoopbackPort();
  const dataDir = mkdtempSync(join(tmpdir(), 'wsmigrate-s3-'));
  const accessKey = 'wsmigrate-test';
  const secretKey = 'wsmigrate-test-secret-0123456789';
  let endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    child = spawn(bin, ['--access', accessKey, '--secret', secretKey, '--port', `127.0.0.1:${port}`, 'posix', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
    child.stderr?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
    let spawnError: Error | undefined;
    child.once('error', (err) => (spawnError = err));
    const deadline = Date.now() + 30_000;
    while (!(await answers(port))) {
      if (spawnError) throw new Error(`cannot run versitygw at ${bin}: ${spawnError.message}; run scripts/bootstrap-tools.sh or fix WSMIGRATE_VERSITYGW_BIN`);
      if (child.exitCode !== null) throw new Error(`versitygw exited (${child.exitCode}): ${log}`);
      if (Date.now() > deadline) throw new Error(`versitygw did not listen on ${endpoint} within 30s: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
    while (await answers(port)) await new Promise((r) => setTimeout(r, 50));
  };
  // The free port may be taken by another test's server between its choice and versitygw's bind:
  // versitygw then exits and the port still answers, as someone else. Only an S3 answer to our keys
  // is versitygw; otherwise try another port.
  for (let attempt = 1; ; attempt++) {
    await start();
    if (await answersAsS3()) break;
    const c = child;
    if (c && c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
    if (attempt === 3) throw new Error(`versitygw did not answer S3 requests on ${endpoint} (3 ports tried): ${log}`);
    port = await freeLoopbackPort();
    endpoint = `http://127.0.0.1:${port}`;
  }
  async function answersAsS3(): Promise<boolean> {
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey }, maxAttempts: 1 });
    try {
      await client.send(new ListBucketsCommand({}));
      return child?.exitCode === null;
    } catch {
      return false;
    } finally {
      client.destroy();
    }
  }
  return {
    endpoint,
    accessKey,
    secretKey,
    dataDir,
    awsEnv: { AWS_ACCESS_KEY_ID: accessKey, AWS_SECRET_ACCESS_KEY: secretKey, AWS_REGION: 'us-east-1' },
    async createBucket(bucket) {
      const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
