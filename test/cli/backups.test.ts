import { randomUUID } from 'node:crypto';
import { registerBackupCommands } from '../../src/cli/commands/backups';
import { createS3BlobStore } from '../../src/adapters/s3-blob-store';
import { runningWorkflows } from '../../src/client/backups';
import { runCommand } from '../harness/cli';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { describeWithS3, startS3TestServer, type S3TestServer } from '../harness/versitygw';

const DAY = 86_400_000;
const state = (n: number) => Buffer.from(JSON.stringify({ version: 4, serial: n, lineage: 'x', resources: [] }));

describeWithS3('wsmigrate backups list | show | prune, on a real S3 server and Temporal', () => {
  let s3: S3TestServer;
  let t: TemporalTestContext;
  const saved = { ...process.env };
  const bucket = 'wsmigrate-backups';
  const prefix = `cli-${randomUUID().slice(0, 8)}`;
  const url = `s3://${bucket}/${prefix}`;
  const runningId = `wsmigrate/k8s/bob/x-${randomUUID().slice(0, 6)}`;
  const bobWorkspace = runningId.split('/').slice(2).join('/');
  const refs: Record<string, string> = {};
  const cli = (...args: string[]) => runCommand(registerBackupCommands, 'backups', ...args);

  beforeAll(async () => {
    s3 = await startS3TestServer();
    await s3.createBucket(bucket);
    t = await connectToTestServer();
    Object.assign(process.env, s3.awsEnv, { AWS_EC2_METADATA_DISABLED: 'true', WSMIGRATE_BLOB_URL: url, WSMIGRATE_S3_ENDPOINT: s3.endpoint });
    delete process.env.WSMIGRATE_BLOB_DIR;
    const at = (daysAgo: number) => createS3BlobStore({ bucket, prefix, endpoint: s3.endpoint, forcePathStyle: true, now: () => new Date(Date.now() - daysAgo * DAY) });
    refs.oldAlice = (await at(90).put(state(1), { kind: 'state-backup', workspace: 'alice/dev', workflowId: 'wsmigrate/k8s/alice/dev' })).ref;
    refs.newestAlice = (await at(60).put(state(2), { kind: 'state-backup', workspace: 'alice/dev', workflowId: 'wsmigrate/k8s/alice/dev' })).ref;
    refs.runningBob = (await at(90).put(state(3), { kind: 'state-backup', workspace: bobWorkspace, workflowId: runningId })).ref;
    refs.newestBob = (await at(40).put(state(4), { kind: 'state-backup', workspace: bobWorkspace, workflowId: 'earlier-run' })).ref;
    refs.young = (await at(5).put(state(5), { kind: 'template-source', label: 'coder/k8s' })).ref;
    // A migration that has not ended: started on a queue no worker polls, so it stays running.
    await t.client.workflow.start('migrateWorkspace', { taskQueue: uniqueTaskQueue('nobody'), workflowId: runningId, args: [{}] });
    await waitFor(async () => (await runningWorkflows(t.client)).some((w) => w.workflowId === runningId), 60_000);
  }, 90_000);
  afterAll(async () => {
    await t.client.workflow.getHandle(runningId).terminate('test over').catch(() => undefined);
    process.env = saved;
    await t?.close();
    await s3?.close();
  });

  it('lists every blob with its workspace, time and workflow, newest first', async () => {
    const r = await cli('list');
    expect(r.exitCode).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`5 blob(s) in ${url}`);
    expect(lines[1]).toContain(refs.young);
    expect(r.out).toMatch(new RegExp(`state-backup\\s+alice/dev\\s+wsmigrate/k8s/alice/dev\\s+${refs.oldAlice}`));
    const json = JSON.parse((await cli('list', '--json')).out) as { ref: string; records: { workspace?: string }[] }[];
    expect(json.find((b) => b.ref === refs.runningBob)?.records[0].workspace).toBe(bobWorkspace);
  });

  it('shows a blob: its records and a verified read-back; a missing one names store and key', async () => {
    const r = await cli('show', refs.newestAlice);
    expect(r.exitCode).toBe(0);
    expect(r.out).toMatch(/verified: reads back as sha256:[0-9a-f]{64}/);
    expect(r.out).toContain('state-backup  alice/dev  workflow wsmigrate/k8s/alice/dev');
    const missing = await cli('show', `${url}/sha256/${'0'.repeat(64)}`);
    expect(missing.exitCode).toBe(1);
    expect(missing.err).toContain(`store ${url}, key ${prefix}/sha256/${'0'.repeat(64)}) does not exist`);
    expect((await cli('show', 'not-a-ref')).exitCode).toBe(2);
  });

  it('prune refuses what it must keep, says why, and deletes only with --yes', async () => {
    const dry = await cli('prune', '--older-than', '30d');
    expect(dry.exitCode).toBe(4);
    expect(dry.out).toContain(`delete  ${refs.oldAlice}`);
    expect(dry.out).toContain(`keep    ${refs.newestAlice}: the newest backup of alice/dev`);
    expect(dry.out).toContain(`keep    ${refs.runningBob}: its migration ${runningId} has not ended`);
    expect(dry.out).toContain(`keep    ${refs.newestBob}: a migration of ${bobWorkspace} is running (${runningId})`);
    expect(dry.out).toMatch(new RegExp(`keep    ${refs.young}: younger than the cut-off`));
    expect(dry.out).toContain(`would delete 1 of 5 blob(s) in ${url}`);
    expect((await cli('list')).out.split('\n')[0]).toBe(`5 blob(s) in ${url}`);

    const wet = await cli('prune', '--older-than', '30d', '--yes');
    expect(wet.exitCode).toBe(0);
    expect(wet.out).toContain(`deleted 1 of 5 blob(s) in ${url}`);
    const after = (await cli('list')).out;
    expect(after).not.toContain(refs.oldAlice);
    expect(after).toContain(refs.runningBob);

    // Once that migration has ended, its old backup goes; the newest of each workspace still stays.
    await t.client.workflow.getHandle(runningId).terminate('ended');
    await waitFor(async () => !(await runningWorkflows(t.client)).some((w) => w.workflowId === runningId), 60_000);
    const later = await cli('prune', '--older-than', '30d', '--yes');
    expect(later.out).toContain(`deleted ${refs.runningBob}`);
    expect(later.out).toContain(`keep    ${refs.newestBob}: the newest backup of ${bobWorkspace}`);
    expect(later.out).toContain(`keep    ${refs.newestAlice}: the newest backup of alice/dev`);
    expect((await cli('prune', '--older-than', 'soon')).exitCode).toBe(2);
  });
});
