import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { connectToTestServer, type TemporalTestContext } from '../harness/temporal';

/**
 * What `migrate workspace`, `migrate template` and `recover` start is what their switches say: read
 * back from the started run's input (on a task queue no worker polls, so nothing runs). A switch that
 * does not reach the input is the worst kind of bug: `--dry-run` not reaching it pushes and promotes
 * a template version, or builds a workspace, that the operator asked only to see; `--no-promote` not
 * reaching it promotes the version.
 */
describe('the CLI starts the run its switches describe', () => {
  let t: TemporalTestContext;
  const saved = { ...process.env };
  const queue = `no-worker-${randomUUID().slice(0, 8)}`;
  const version = randomUUID();
  const started: string[] = [];
  beforeAll(async () => {
    t = await connectToTestServer();
    process.env.WSMIGRATE_TASK_QUEUE = queue;
    for (const v of ['CODER_URL', 'CODER_SESSION_TOKEN', 'WSMIGRATE_ENCRYPTION_KEY', 'WSMIGRATE_APPROVERS']) delete process.env[v];
  });
  afterAll(async () => {
    for (const id of started) await t.client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    process.env = saved;
    await t?.close();
  });

  /** Runs the command (it must start a run), and answers the input that run was started with. */
  async function inputOf(...args: string[]): Promise<Record<string, unknown>> {
    const r = await runMain(...args);
    expect(r.exitCode).toBe(EXIT.ok);
    const id = /^started (\S+)$/m.exec(r.out)?.[1] as string;
    expect(id).toBeDefined();
    started.push(id);
    const history = await t.client.workflow.getHandle(id).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    return defaultPayloadConverter.fromPayload(payload!) as Record<string, unknown>;
  }
  const name = () => `ws-${randomUUID().slice(0, 8)}`;

  it('migrate workspace: --dry-run, --option B, --strategy import, --allow-inactive-version; no --any-approver is no any-approver', async () => {
    const dry = await inputOf('migrate', 'workspace', `alice/${name()}`, '--template', 'k8s', '--version', version, '--approver', 'sre', '--dry-run');
    expect(dry).toMatchObject({ dryRun: true, option: 'A', strategy: 'rename', approval: { policy: 'destructive', approvers: ['sre'], anyApprover: false } });
    expect(dry.allowInactiveVersion).toBeUndefined();
    const b = await inputOf('migrate', 'workspace', `alice/${name()}`, '--template', 'k8s', '--version', version, '--approver', 'sre', '--option', 'B', '--strategy', 'import', '--allow-inactive-version');
    expect(b).toMatchObject({ dryRun: false, option: 'B', strategy: 'import', allowInactiveVersion: true });
  });

  it('migrate template: --dry-run and --no-promote reach the run; without them it pushes and promotes', async () => {
    const dry = await inputOf('migrate', 'template', `k8s-${name()}`, '--org', 'coder', '--approver', 'sre', '--dry-run', '--no-promote');
    expect(dry).toMatchObject({ dryRun: true, stopBeforePromote: true, approval: { anyApprover: false } });
    const real = await inputOf('migrate', 'template', `k8s-${name()}`, '--org', 'coder', '--approver', 'sre');
    expect(real).toMatchObject({ dryRun: false, stopBeforePromote: false });
  });

  it('recover: --dry-run reaches the run; an approver named is not any approver', async () => {
    const dry = await inputOf('recover', `alice/${name()}`, '--template', 'k8s', '--version', version, '--approver', 'sre', '--dry-run');
    expect(dry).toMatchObject({ dryRun: true, approval: { policy: 'all', approvers: ['sre'], anyApprover: false } });
    expect(await inputOf('recover', `alice/${name()}`, '--template', 'k8s', '--version', version, '--approver', 'sre')).toMatchObject({ dryRun: false });
  });
});
