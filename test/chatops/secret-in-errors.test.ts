import { startChatops, type Chatops } from '../../src/chatops/app';
import type { ApprovalGateway } from '../../src/client/approvals';
import { Secret } from '../../src/config/secret';
import { commandRequest, send, startFakeSlack, type FakeSlack } from './fake-slack';
import { lineLogger } from './line-logger';

const SECRET = 'chatops-signing-secret-in-an-error-0123';

/**
 * The receiver redacts its own signing secret from whatever it answers or logs (signed-receiver.ts
 * log(), handle()'s 500): an error from Temporal or wsmigrate that quotes it, as a misconfigured
 * deployment's error can, never reaches Slack or the log. The logger is built without the secret,
 * so the receiver's own redaction is what is tested.
 */
describe('chatops: a failure quoting the signing secret', () => {
  let slack: FakeSlack;
  let chatops: Chatops;
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    const fails = () => Promise.reject(new Error(`connection refused; SLACK_SIGNING_SECRET=${SECRET} was set`));
    const gateway: ApprovalGateway = { pending: fails, decide: fails, status: fails, waiting: fails };
    chatops = await startChatops({ signingSecret: Secret.of(SECRET), port: 0, host: '127.0.0.1', slackApprovers: { UALICE: 'alice' }, gateway, logger: lineLogger(logs), slackApiUrl: slack.apiUrl });
  });
  afterAll(async () => {
    await chatops?.stop();
    await slack?.close();
  });

  it('answers 500 and logs the failure without the secret', async () => {
    const res = await send(`http://127.0.0.1:${chatops.port}/slack/events`, commandRequest(SECRET, { userId: 'UALICE', text: 'approve wsmigrate/k8s/alice/dev', responseUrl: slack.responseUrl('r1') }));
    expect(res.status).toBe(500);
    expect(res.body.text).toMatch(/connection refused/);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(logs.join('\n')).toMatch(/slack request failed/);
    expect(logs.join('\n')).not.toContain(SECRET);
  });
});
