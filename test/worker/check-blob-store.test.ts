import { registerBackupCommands } from '../../src/cli/commands/backups';
import { loadConfig } from '../../src/config/env';
import { activityDepsFromConfig } from '../../src/worker/activity-deps';
import { checkBlobStore } from '../../src/worker/check-blob-store';
import { runWorker } from '../../src/worker/run-worker';
import { runCommand } from '../harness/cli';
import { describeWithS3, startS3TestServer, type S3TestServer } from '../harness/versitygw';

describeWithS3('a worker and the CLI facing wrong S3 credentials or a store that is down', () => {
  let s3: S3TestServer;
  const saved = { ...process.env };
  const bucket = 'wsmigrate-backups';
  const settings = () => ({ TEMPORAL_ADDRESS: '127.0.0.1:1', WSMIGRATE_BLOB_URL: `s3://${bucket}/w`, WSMIGRATE_S3_ENDPOINT: s3.endpoint, WSMIGRATE_METRICS_PORT: '0' });

  beforeAll(async () => {
    s3 = await startS3TestServer();
    await s3.createBucket(bucket);
  }, 60_000);
  beforeEach(() => Object.assign(process.env, s3.awsEnv, { AWS_EC2_METADATA_DISABLED: 'true' }));
  afterAll(async () => {
    process.env = saved;
    await s3?.close();
  });

  it('the worker refuses to start on a wrong secret, naming the variable, before it takes any task', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'wrong-secret-9d1e';
    const cfg = loadConfig(settings());
    const lines: string[] = [];
    const started = runWorker(cfg, activityDepsFromConfig(cfg, { coder: {} as never }), { log: (l) => lines.push(l) });
    await expect(started).rejects.toThrow(new RegExp(`the blob store s3://${bucket}/w refused this worker: .*AWS_SECRET_ACCESS_KEY does not belong to AWS_ACCESS_KEY_ID`));
    await expect(started).rejects.not.toThrow('wrong-secret-9d1e');
    expect(lines.join('\n')).not.toContain('polling');
  });

  it('the CLI names the variable too, and exits 1', async () => {
    Object.assign(process.env, settings());
    process.env.AWS_ACCESS_KEY_ID = 'unknown-key-id';
    const r = await runCommand(registerBackupCommands, 'backups', 'list');
    expect(r.exitCode).toBe(1);
    expect(r.err).toMatch(/does not know AWS_ACCESS_KEY_ID; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  });

  it('a store that is down is a loud warning at start, not a refusal', async () => {
    const cfg = loadConfig(settings());
    const { blobs } = activityDepsFromConfig(cfg, { coder: {} as never });
    await s3.stop();
    try {
      const lines: string[] = [];
      await checkBlobStore(blobs, (l) => lines.push(l));
      expect(lines.join('\n')).toMatch(new RegExp(`WARNING: the blob store s3://${bucket}/w does not answer yet; backups fail .*WSMIGRATE_S3_ENDPOINT`));
    } finally {
      await s3.start();
    }
    const lines: string[] = [];
    await checkBlobStore(blobs, (l) => lines.push(l));
    expect(lines).toEqual([]);
  });
});
