import { lineLogger } from './line-logger';
import type { ApprovalGateway } from '../../src/client/approvals';
import { MigrationNotFoundError } from '../../src/client/approvals';
import { startChatops, type Chatops } from '../../src/chatops/app';
import { Secret } from '../../src/config/secret';
import { APPROVE_ACTION, REJECT_ACTION, encodeButtonValue } from '../../src/domain/approval-button';
import type { PendingApproval } from '../../src/domain/approval-policy';
import { waitFor } from '../harness/wait';
import { clickRequest, commandRequest, send, signed, startFakeSlack, type FakeSlack } from './fake-slack';

const SECRET = 'chatops-test-signing-secret-0123456789';
const WF = 'wsmigrate/k8s/alice/dev';

/** Records every call, so a test can prove a refused request reached nothing. */
function recordingGateway(pending: PendingApproval | undefined) {
  const calls: { op: string; args: unknown[] }[] = [];
  const gateway: ApprovalGateway = {
    async pending(id) {
      calls.push({ op: 'pending', args: [id] });
      if (id !== WF) throw new MigrationNotFoundError(id);
      return pending;
    },
    async decide(id, decision, opts) {
      calls.push({ op: 'decide', args: [id, decision, opts] });
      return { gateId: opts.gateId!, planHash: opts.planHash!, decision, approver: opts.approver, channel: opts.channel ?? 'cli', slackUserId: opts.slackUserId, at: '2026-11-30T12:00:00.000Z' };
    },
    async status(id) {
      calls.push({ op: 'status', args: [id] });
      if (id !== WF) throw new MigrationNotFoundError(id);
      return { workflowId: id, phase: 'awaiting-approval', run: { state: 'running' }, stepsDone: ['preflight', 'backup'], pendingApproval: pending };
    },
    async waiting() {
      calls.push({ op: 'waiting', args: [] });
      return { waiting: pending ? [{ workflowId: WF, pending }] : [], silent: [] };
    },
  };
  return { gateway, calls };
}

describe('wsmigrate chatops (signed Slack requests, a recording gateway in place of Temporal)', () => {
  const pending: PendingApproval = { gateId: 'apply', planHash: 'sha256:plan-1', summary: 'Push the migrated state of alice/dev', requestedAt: '2026-11-30T11:00:00Z', escalated: false, approvers: ['alice'], anyApprover: false };
  let slack: FakeSlack;
  let chatops: Chatops;
  let rec: ReturnType<typeof recordingGateway>;
  let url: string;
  const logs: string[] = [];
  const value = encodeButtonValue({ workflowId: WF, gateId: 'apply', planHash: 'sha256:plan-1' });
  const click = (over: Partial<Parameters<typeof clickRequest>[1]> = {}) =>
    clickRequest(SECRET, { userId: 'UALICE', actionId: APPROVE_ACTION, value, responseUrl: slack.responseUrl('r1'), ...over });

  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  beforeEach(async () => {
    rec = recordingGateway(pending);
    chatops = await startChatops({ signingSecret: Secret.of(SECRET), port: 0, host: '127.0.0.1', slackApprovers: { UALICE: 'alice', UBOB: 'bob' }, gateway: rec.gateway, logger: lineLogger(logs), slackApiUrl: slack.apiUrl });
    url = `http://127.0.0.1:${chatops.port}/slack/events`;
  });
  afterEach(async () => chatops.stop());
  afterAll(async () => slack.close());

  it('a signed click of an approver approves exactly the gate and plan on the button, as a Slack decision', async () => {
    const r = await send(url, click());
    expect(r.status).toBe(200);
    expect(r.body.text).toMatch(/Approved `apply` of `wsmigrate\/k8s\/alice\/dev` as \*alice\*/);
    const decide = rec.calls.filter((c) => c.op === 'decide');
    expect(decide).toEqual([{ op: 'decide', args: [WF, 'approve', expect.objectContaining({ approver: 'alice', gateId: 'apply', planHash: 'sha256:plan-1', channel: 'slack', slackUserId: 'UALICE' })] }]);
    // Slack ignores a click's HTTP body, so the clicker hears it through response_url.
    await waitFor(() => slack.responses.some((x) => /Approved/.test(String(x.body.text))), 10_000);
    expect(slack.responses.at(-1)?.body).toMatchObject({ response_type: 'ephemeral', replace_original: false, text: expect.stringMatching(/Approved/) });
  });

  it.each([
    ['a forged request (signed with another secret)', () => clickRequest('not-the-secret', { userId: 'UALICE', actionId: APPROVE_ACTION, value, responseUrl: slack.responseUrl('r') }), /bad signature/],
    ['an expired request (signed 6 minutes ago)', () => click({ timestamp: Math.floor(Date.now() / 1000) - 360 }), /expired: .*more than 5 minutes old/],
    ['a request from the future', () => click({ timestamp: Math.floor(Date.now() / 1000) + 600 }), /more than 5 minutes in the future/],
  ])('refuses %s with 401 and the reason, before anything else', async (_what, make, reason) => {
    const r = await send(url, make());
    expect(r.status).toBe(401);
    expect(r.body.text).toMatch(reason);
    expect(rec.calls).toEqual([]);
  });

  it('refuses an unsigned request and a body changed after signing', async () => {
    const req = click();
    expect((await send(url, { body: req.body, headers: { 'content-type': req.headers['content-type'] } })).status).toBe(401);
    const tampered = await send(url, { ...req, body: req.body.replace('UALICE', 'UBOB') });
    expect(tampered.status).toBe(401);
    expect(tampered.body.text).toMatch(/bad signature/);
    expect(rec.calls).toEqual([]);
  });

  it('a replayed request is refused (401); a Slack retry of the same click is answered without deciding twice', async () => {
    const req = click({ triggerId: 'trigger-once' });
    expect((await send(url, req)).status).toBe(200);
    const replay = await send(url, req);
    expect(replay.status).toBe(401);
    expect(replay.body.text).toMatch(/replayed request/);
    // Slack re-sends with a retry header (and may re-sign with a new timestamp); same interaction.
    const retried = await send(url, click({ triggerId: 'trigger-once', timestamp: Math.floor(Date.now() / 1000) + 1 }), { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(retried.status).toBe(200);
    expect(retried.body.text).toMatch(/already handled/);
    expect(await send(url, req, { 'x-slack-retry-num': '2' })).toMatchObject({ status: 200 });
    expect(rec.calls.filter((c) => c.op === 'decide')).toHaveLength(1);
  });

  it('refuses a Slack user not in WSMIGRATE_SLACK_APPROVERS (403) without asking Temporal anything', async () => {
    const r = await send(url, click({ userId: 'UEVE' }));
    expect(r.status).toBe(403);
    expect(r.body.text).toMatch(/UEVE is not mapped to a wsmigrate approver.*WSMIGRATE_SLACK_APPROVERS/);
    expect(rec.calls).toEqual([]);
  });

  it.each([
    ['a mapped user who is not an approver of this run', { userId: 'UBOB' }, /'bob' is not an approver for this run \(allowed: alice\)/],
    ['a click for another gate', { value: encodeButtonValue({ workflowId: WF, gateId: 'start', planHash: 'sha256:plan-1' }) }, /gate 'start' is not the pending gate 'apply'/],
    ['a click on a stale plan', { value: encodeButtonValue({ workflowId: WF, gateId: 'apply', planHash: 'sha256:plan-0' }) }, /plan hash sha256:plan-0 does not match the pending plan/],
    ['a button without a wsmigrate value', { value: 'nonsense' }, /does not carry a wsmigrate workflow id/],
  ])('refuses %s with 403 and the reason; no decision is sent', async (_what, over, reason) => {
    const r = await send(url, click(over));
    expect(r.status).toBe(403);
    expect(r.body.text).toMatch(reason);
    expect(rec.calls.filter((c) => c.op === 'decide')).toEqual([]);
    await waitFor(() => reason.test(String(slack.responses.at(-1)?.body.text)), 10_000);
  });

  it('the Reject button rejects, recorded as from Slack', async () => {
    const r = await send(url, click({ actionId: REJECT_ACTION }));
    expect(r.status).toBe(200);
    expect(rec.calls.find((c) => c.op === 'decide')?.args.slice(0, 2)).toEqual([WF, 'reject']);
  });

  it('slash command: approvals, status, approve, reject with a reason, and help for anything else', async () => {
    const cmd = (text: string, userId = 'UALICE') => send(url, commandRequest(SECRET, { userId, text, responseUrl: slack.responseUrl('c') }));
    expect((await cmd('approvals')).body.text).toMatch(/1 waiting for a decision:\n• `wsmigrate\/k8s\/alice\/dev` at `apply`: Push the migrated state/);
    expect((await cmd(`status ${WF}`)).body.text).toMatch(/\*awaiting-approval\*[\s\S]*waiting for approval of `apply`[\s\S]*plan `sha256:plan-1`/);
    const notFound = await cmd('status wsmigrate/k8s/nobody/none');
    expect(notFound.status).toBe(404);
    expect(notFound.body.text).toMatch(/no migration 'wsmigrate\/k8s\/nobody\/none'/);
    expect((await cmd(`approve ${WF}`)).body.text).toMatch(/Approved `apply`/);
    expect((await cmd(`reject ${WF} volume looks wrong`)).status).toBe(200);
    const decides = rec.calls.filter((c) => c.op === 'decide').map((c) => c.args);
    expect(decides).toEqual([
      [WF, 'approve', expect.objectContaining({ approver: 'alice', channel: 'slack', gateId: 'apply', planHash: 'sha256:plan-1' })],
      [WF, 'reject', expect.objectContaining({ approver: 'alice', channel: 'slack', comment: 'volume looks wrong' })],
    ]);
    const stranger = await cmd(`approve ${WF}`, 'UEVE');
    expect(stranger.status).toBe(403);
    expect((await cmd('launch the rockets')).body.text).toMatch(/unknown subcommand 'launch'[\s\S]*Usage: `\/wsmigrate approvals`/);
    expect((await cmd('approve')).body.text).toMatch(/'approve' needs a workflow id/);
  });

  it('says so when nothing is waiting', async () => {
    await chatops.stop();
    rec = recordingGateway(undefined);
    chatops = await startChatops({ signingSecret: Secret.of(SECRET), port: 0, host: '127.0.0.1', slackApprovers: { UALICE: 'alice' }, gateway: rec.gateway, logger: lineLogger(logs) });
    url = `http://127.0.0.1:${chatops.port}/slack/events`;
    const r = await send(url, click());
    expect(r.status).toBe(403);
    expect(r.body.text).toMatch(/not waiting for an approval/);
    expect((await send(url, commandRequest(SECRET, { userId: 'UALICE', text: 'approvals', responseUrl: slack.responseUrl('c') }))).body.text).toBe('Nothing is waiting for an approval.');
  });

  it('writes an audit line for each decision it sends', async () => {
    await send(url, click());
    const audit = logs.filter((l) => l.includes('"msg":"decision sent"')).map((l) => JSON.parse(l));
    expect(audit.at(-1)).toMatchObject({ workflowId: WF, gateId: 'apply', planHash: 'sha256:plan-1', decision: 'approve', approver: 'alice', slackUserId: 'UALICE' });
  });

  it('when Temporal cannot be reached, answers 500 with the reason and decides nothing', async () => {
    rec.gateway.pending = async () => {
      throw new Error('14 UNAVAILABLE: connection refused');
    };
    const r = await send(url, click());
    expect(r.status).toBe(500);
    expect(r.body.text).toMatch(/could not handle this: 14 UNAVAILABLE: connection refused/);
    expect(rec.calls.filter((c) => c.op === 'decide')).toEqual([]);
  });

  it('answers a health probe, and 404 elsewhere; logs carry no secret and no request body', async () => {
    expect((await fetch(`http://127.0.0.1:${chatops.port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${chatops.port}/other`, { method: 'POST', body: '' })).status).toBe(404);
    await send(url, signed(SECRET, 'garbage=1'));
    expect(logs.length).toBeGreaterThan(5);
    const all = logs.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('payload=');
    expect(logs.some((l) => /"status":401.*"reason":"bad signature/.test(l))).toBe(true);
  });
});
