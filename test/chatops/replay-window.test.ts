import { startChatops, type Chatops } from '../../src/chatops/app';
import type { ApprovalGateway } from '../../src/client/approvals';
import { Secret } from '../../src/config/secret';
import { APPROVE_ACTION, encodeButtonValue } from '../../src/domain/approval-button';
import type { PendingApproval } from '../../src/domain/approval-policy';
import { clickRequest, send, startFakeSlack, type FakeSlack } from './fake-slack';
import { lineLogger } from './line-logger';

const SECRET = 'chatops-replay-signing-secret-0123456789';
const WF = 'wsmigrate/k8s/alice/dev';
const pending: PendingApproval = { gateId: 'apply', planHash: 'sha256:plan-1', summary: 'Push', requestedAt: '2026-11-30T11:00:00Z', escalated: false, approvers: ['alice'], anyApprover: false };

/** Slack's 5-minute window, on a clock the test moves: a replay late in the window is still refused. */
describe('chatops: the replay window, on an injected clock', () => {
  let slack: FakeSlack;
  let chatops: Chatops;
  let url: string;
  let nowMs: number;
  let decisions: number;
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  beforeEach(async () => {
    nowMs = Date.UTC(2026, 11, 1, 12, 0, 0);
    decisions = 0;
    const gateway: ApprovalGateway = {
      pending: async () => pending,
      decide: async (_id, decision, opts) => {
        decisions++;
        return { gateId: opts.gateId!, planHash: opts.planHash!, decision, approver: opts.approver, channel: 'slack', slackUserId: opts.slackUserId, at: new Date(nowMs).toISOString() };
      },
      status: async (id) => ({ workflowId: id, phase: 'awaiting-approval', run: { state: 'running' }, stepsDone: [], pendingApproval: pending }),
      waiting: async () => ({ waiting: [{ workflowId: WF, pending }], silent: [] }),
    };
    chatops = await startChatops({
      signingSecret: Secret.of(SECRET),
      port: 0,
      host: '127.0.0.1',
      slackApprovers: { UALICE: 'alice' },
      gateway,
      logger: lineLogger(logs),
      slackApiUrl: slack.apiUrl,
      now: () => nowMs,
    });
    url = `http://127.0.0.1:${chatops.port}/slack/events`;
  });
  afterEach(async () => chatops.stop());
  afterAll(async () => slack.close());

  const click = (timestampSeconds: number, triggerId?: string) =>
    clickRequest(SECRET, {
      userId: 'UALICE',
      actionId: APPROVE_ACTION,
      value: encodeButtonValue({ workflowId: WF, gateId: 'apply', planHash: 'sha256:plan-1' }),
      responseUrl: slack.responseUrl('r1'),
      timestamp: timestampSeconds,
      ...(triggerId ? { triggerId } : {}),
    });

  it('the same signed request replayed 4 min 59 s later is refused as a replay, and decides nothing', async () => {
    const request = click(nowMs / 1000);
    expect((await send(url, request)).status).toBe(200);
    expect(decisions).toBe(1);
    nowMs += 299_000;
    const replay = await send(url, request);
    expect(replay.status).toBe(401);
    expect(replay.body.text).toBe('replayed request: this signed request was already handled');
    expect(decisions).toBe(1);
  });

  it('a request signed 5 min 1 s ago is refused as expired; one from 6 min ahead as from the future', async () => {
    const signedAt = nowMs / 1000;
    nowMs += 301_000;
    const late = await send(url, click(signedAt));
    expect(late.status).toBe(401);
    expect(late.body.text).toMatch(/expired/);
    const future = await send(url, click(nowMs / 1000 + 360));
    expect(future.status).toBe(401);
    expect(future.body.text).toBe('request expired: its X-Slack-Request-Timestamp is more than 5 minutes in the future');
    expect(decisions).toBe(0);
  });

  it('a request signed 4 min 59 s ago, or 4 min 59 s ahead, is accepted', async () => {
    const at = nowMs / 1000;
    nowMs += 299_000;
    expect((await send(url, click(at))).status).toBe(200);
    expect((await send(url, click(nowMs / 1000 + 299))).status).toBe(200);
    expect(decisions).toBe(2);
  });

  it('a Slack retry of the same click, re-signed 9 minutes later, is answered without deciding again', async () => {
    expect((await send(url, click(nowMs / 1000, 'trigger-late-retry'))).status).toBe(200);
    nowMs += 9 * 60_000;
    const retry = await send(url, click(nowMs / 1000, 'trigger-late-retry'), { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(retry.status).toBe(200);
    expect(retry.body.text).toBe('already handled (Slack retry)');
    expect(decisions).toBe(1);
  });
});
