import { lineLogger } from './line-logger';
import { startChatopsFromConfig } from './chatops-from-config';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkflowHandle } from '@temporalio/client';
import { notifierFromConfig } from '../../src/adapters/notify/from-config';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../../src/adapters/notify/webhook';
import type { Chatops } from '../../src/chatops/app';
import { approvalGateway } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { loadConfig } from '../../src/config/env';
import { APPROVE_ACTION, REJECT_ACTION, decodeButtonValue, type ButtonValue } from '../../src/domain/approval-button';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { registerApprovalCommands } from '../../src/cli/commands/approvals';
import { runCommand } from '../harness/cli';
import { failureOf, waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { clickRequest, commandRequest, send, startFakeSlack, type FakeSlack, type PostedMessage } from './fake-slack';

const SIGNING = 'e2e-signing-secret-4f1c9a7d2b';
const BOT = 'xoxb-e2e-SuperSecretBotToken-77';
const HOOK_SECRET = 'whsec-e2e-SuperSecretHookKey-77';

/** A history as text, payload bytes decoded (the test data converter does not encrypt), to search for secrets. */
async function historyText(handle: WorkflowHandle): Promise<string> {
  const decode = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === 'object') {
      // Payload bytes may come as base64 text (proto JSON) or as bytes.
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'data' && typeof x === 'string' ? Buffer.from(x, 'base64').toString('utf8') : decode(x)]));
    }
    return v;
  };
  return JSON.stringify(decode(await handle.fetchHistory()));
}

describe('approvals from Slack, end to end on the dev server (simulator, fake Slack, signed clicks)', () => {
  let env: MigrationEnv;
  let slack: FakeSlack;
  let chatops: Chatops;
  let hook: Server;
  let url: string;
  let targetVersionId: string;
  let originalVersionId: string;
  const logs: string[] = [];
  const hookHits: { headers: Record<string, string>; body: string }[] = [];
  const handles: WorkflowHandle[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hookHits.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const cfg = loadConfig({
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_BOT_TOKEN: BOT,
      SLACK_CHANNEL: 'C0WSMIGRATE',
      SLACK_API_URL: slack.apiUrl,
      WSMIGRATE_SLACK_APPROVERS: 'UALICE=alice,UBOB=bob',
      WSMIGRATE_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/wsmigrate`,
      WSMIGRATE_WEBHOOK_SECRET: HOOK_SECRET,
    });
    env = await createMigrationEnv({ workspaces: 4 });
    await env.startWorker({ notifier: notifierFromConfig(cfg, { write: (l) => logs.push(l) }).notifier });
    originalVersionId = env.sim.template.activeVersionId;
    targetVersionId = (await env.migrateTemplate()).versionId;
    ({ chatops, url } = await startChatopsFromConfig(cfg, approvalGateway(env.t.client), lineLogger(logs)));
  }, 120_000);
  afterAll(async () => {
    await chatops?.stop();
    await env?.close();
    await slack?.close();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
  });

  const ws = (i: number) => env.sim.workspaces()[i];
  const start = async (i: number) => {
    const h = await startWorkspaceMigration(
      env.t.client,
      { owner: ws(i).owner, workspace: ws(i).name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    handles.push(h);
    return h;
  };
  /** The approval message the worker posted for this workflow, and what its buttons carry. */
  const postedFor = async (workflowId: string): Promise<{ message: PostedMessage; value: ButtonValue; raw: string }> => {
    let found: { message: PostedMessage; value: ButtonValue; raw: string } | undefined;
    await waitFor(() => {
      for (const message of slack.messages.values()) {
        const raw = message.blocks.find((b) => b.type === 'actions')?.elements?.[0]?.value;
        const value = decodeButtonValue(raw);
        if (value?.workflowId === workflowId) found = { message, value, raw: raw! };
      }
      return found !== undefined;
    }, 90_000);
    return found!;
  };
  const click = (userId: string, actionId: string, value: string) => send(url, clickRequest(SIGNING, { userId, actionId, value, responseUrl: slack.responseUrl(userId) }));
  const updateCount = (text: string) => (text.match(/workflowExecutionUpdateAcceptedEventAttributes/g) ?? []).length;

  it('a workspace waits at the apply gate → the message is posted → a signed click approves → it migrates and the message shows who approved', async () => {
    const handle = await start(0);
    const { message, value, raw } = await postedFor(handle.workflowId);
    expect(message.channel).toBe('C0WSMIGRATE');
    expect(value.gateId).toBe('apply');

    // Refused before anything reaches the workflow: a mapped non-approver and a stale plan.
    const bob = await click('UBOB', APPROVE_ACTION, raw);
    expect(bob.status).toBe(403);
    expect(bob.body.text).toMatch(/'bob' is not an approver for this run/);
    const stale = await click('UALICE', APPROVE_ACTION, JSON.stringify({ w: value.workflowId, g: 'apply', p: 'sha256:stale' }));
    expect(stale.status).toBe(403);
    expect(stale.body.text).toMatch(/does not match the pending plan/);
    expect(updateCount(await historyText(handle))).toBe(0);

    const ok = await click('UALICE', APPROVE_ACTION, raw);
    expect(ok.status).toBe(200);
    expect(ok.body.text).toMatch(/Approved `apply` .* as \*alice\*/);
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');

    await waitFor(() => /Approved\* `apply` by \*alice\* \(via slack\)/.test(slack.messages.get(message.ts)?.blocks[0]?.text?.text ?? ''), 30_000);
    expect(slack.messages.get(message.ts)!.blocks.some((b) => b.type === 'actions')).toBe(false);

    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.approvals).toEqual([{ gateId: 'apply', planHash: value.planHash, decision: 'approve', approver: 'alice', channel: 'slack', slackUserId: 'UALICE', at: expect.any(String) }]);
    const history = await historyText(handle);
    expect(updateCount(history)).toBe(1);
    // The accepted update's input and its result (the receipt) are in the history, as escaped JSON.
    expect((history.match(/slackUserId\\":\\"UALICE/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(/channel\\":\\"slack/.test(history)).toBe(true);
  });

  it('a signed click on Reject stops the migration; the workspace is restored and the message shows who rejected', async () => {
    const handle = await start(1);
    const { message, raw } = await postedFor(handle.workflowId);
    // The listing reads Temporal's visibility, which may trail the message by a moment.
    let listed = '';
    await waitFor(async () => {
      listed = (await send(url, commandRequest(SIGNING, { userId: 'UBOB', text: 'approvals', responseUrl: slack.responseUrl('list') }))).body.text ?? '';
      return listed.includes(handle.workflowId);
    }, 30_000);
    expect(listed).toContain(handle.workflowId);
    // The CLI lists the same (it and chatops share the client door).
    const cli = await runCommand(registerApprovalCommands, 'approvals');
    expect(cli.out).toMatch(new RegExp(`${handle.workflowId}: 'apply' since [\\s\\S]*approvers: alice`));

    expect((await click('UALICE', REJECT_ACTION, raw)).status).toBe(200);
    expect(await failureOf(handle.result())).toMatch(/: rejected by alice at the apply gate \('rejected from Slack'\): nothing built on \S+; restored: state and transition as before$/);
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.phase).toBe('restored');
    expect(status.approvals[0]).toMatchObject({ decision: 'reject', approver: 'alice', channel: 'slack', slackUserId: 'UALICE' });
    expect((await env.coder.workspace(ws(1).id)).latest_build.template_version_id).toBe(originalVersionId);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    await waitFor(() => /Rejected\* `apply` by \*alice\* \(via slack\)/.test(slack.messages.get(message.ts)?.blocks[0]?.text?.text ?? ''), 30_000);
    // Its own waits (the post, visibility's listing, the restore, the edit) need more than jest's default minute on a loaded
    // machine: 150 s ran out once at load 8 (two test runs beside CI) with the restore under way.
  }, 240_000);

  it('an unanswered gate edits its message when it escalates and again when it times out; --any-approver is in the memo', async () => {
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws(2).owner, workspace: ws(2).name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', anyApprover: true, timeout: '3s', escalateTo: 'oncall-lead' } },
      { taskQueue: env.taskQueue },
    );
    handles.push(handle);
    const { message } = await postedFor(handle.workflowId);
    await waitFor(() => /Approval overdue[\s\S]*Escalated to oncall-lead/.test(slack.messages.get(message.ts)?.blocks[0]?.text?.text ?? ''), 60_000);
    expect(slack.messages.get(message.ts)!.blocks.some((b) => b.type === 'actions')).toBe(true);
    // The edit is silent, so the escalation is also a reply in the thread, broadcast to the channel.
    await waitFor(() => slack.calls.some((c) => c.method === 'chat.postMessage' && c.body.thread_ts === message.ts && c.body.reply_broadcast === 'true' && /escalated to oncall-lead/.test(String(c.body.text))), 30_000);
    expect(await failureOf(handle.result())).toMatch(/: the apply gate timed out after \d+s with no decision \(escalated once\): nothing built on \S+; restored/);
    await waitFor(() => /Approval timed out/.test(slack.messages.get(message.ts)?.blocks[0]?.text?.text ?? ''), 30_000);
    expect(slack.messages.get(message.ts)!.blocks.some((b) => b.type === 'actions')).toBe(false);
    // One message for the whole gate: edited in place, never re-posted.
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && !c.body.thread_ts && JSON.stringify(c.body).includes(handle.workflowId) && /Approval/.test(String(c.body.text)))).toHaveLength(1);
    expect((await handle.describe()).memo).toMatchObject({ approvers: 'any (started with --any-approver)' });
  });

  it('with Slack down, a migration still completes; the failed delivery is logged after its retries', async () => {
    slack.failNext(10_000, 503);
    try {
      const handle = await startWorkspaceMigration(
        env.t.client,
        { owner: ws(3).owner, workspace: ws(3).name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      );
      handles.push(handle);
      expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
      const failed = logs.filter((l) => l.includes('"notification not delivered"') && l.includes(handle.workflowId)).map((l) => JSON.parse(l));
      expect(failed).toEqual([expect.objectContaining({ backend: 'slack', notification: 'migration-done', error: expect.stringMatching(/Slack refused the message/) })]);
      // The other backends still got it.
      expect(hookHits.some((h) => JSON.parse(h.body).kind === 'migration-done' && JSON.parse(h.body).workflowId === handle.workflowId)).toBe(true);
    } finally {
      slack.failNext(0);
    }
  });

  it('the webhook got every gate event signed; no signing secret, bot token or webhook secret is in any log line, webhook body or history', async () => {
    const kinds = hookHits.map((h) => JSON.parse(h.body).kind as string);
    expect(kinds).toEqual(expect.arrayContaining(['approval-requested', 'approval-closed', 'migration-done', 'restored']));
    for (const h of hookHits) expect(verifyWebhookSignature(HOOK_SECRET, h.headers[WEBHOOK_TIMESTAMP_HEADER], h.body, h.headers[WEBHOOK_SIGNATURE_HEADER])).toBe(true);
    const closed = hookHits.map((h) => JSON.parse(h.body)).find((n) => n.kind === 'approval-closed' && n.decision?.decision === 'approve');
    expect(closed.decision).toMatchObject({ approver: 'alice', channel: 'slack' });

    expect(logs.some((l) => l.includes('"component":"chatops"'))).toBe(true);
    expect(logs.some((l) => l.includes('"notification":"approval-closed"'))).toBe(true);
    const everything = [...logs, ...hookHits.map((h) => h.body), ...(await Promise.all(handles.map(historyText)))].join('\n');
    for (const secret of [SIGNING, BOT, HOOK_SECRET]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(Buffer.from(secret).toString('base64'));
    }
  });
});
