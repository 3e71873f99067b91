import { notifierFromConfig } from '../../src/adapters/notify/from-config';
import type { Chatops } from '../../src/chatops/app';
import { approvalGateway } from '../../src/client/approvals';
import { startFleet } from '../../src/client/fleet';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { loadConfig } from '../../src/config/env';
import { APPROVE_ACTION, decodeButtonValue, type ButtonValue } from '../../src/domain/approval-button';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { clickRequest, commandRequest, send, startFakeSlack, type FakeSlack, type PostedMessage } from './fake-slack';
import { lineLogger } from './line-logger';
import { startChatopsFromConfig } from './chatops-from-config';

const SIGNING = 'fleet-e2e-signing-secret-9a8b7c';
const BOT = 'xoxb-fleet-e2e-SuperSecretBotToken-42';

describe('fleet gates from Slack, end to end on the dev server (simulator, fake Slack, signed clicks)', () => {
  let env: MigrationEnv;
  let slack: FakeSlack;
  let chatops: Chatops;
  let url: string;
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    const cfg = loadConfig({
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_BOT_TOKEN: BOT,
      SLACK_CHANNEL: 'C0FLEET',
      SLACK_API_URL: slack.apiUrl,
      WSMIGRATE_SLACK_APPROVERS: 'UALICE=alice,UBOB=bob',
    });
    env = await createMigrationEnv({ workspaces: 3 });
    await env.startWorker({ notifier: notifierFromConfig(cfg, { write: (l) => logs.push(l) }).notifier });
    ({ chatops, url } = await startChatopsFromConfig(cfg, approvalGateway(env.t.client), lineLogger(logs, [SIGNING, BOT])));
  }, 120_000);
  afterAll(async () => {
    await chatops?.stop();
    await env?.close();
    await slack?.close();
  });

  /** The open approval message for this workflow's gate, and what its buttons carry. */
  const postedFor = async (workflowId: string, gateId: string): Promise<{ message: PostedMessage; value: ButtonValue; raw: string }> => {
    let found: { message: PostedMessage; value: ButtonValue; raw: string } | undefined;
    await waitFor(() => {
      for (const message of slack.messages.values()) {
        const raw = message.blocks.find((b) => b.type === 'actions')?.elements?.[0]?.value;
        const value = decodeButtonValue(raw);
        if (value?.workflowId === workflowId && value.gateId === gateId) found = { message, value, raw: raw! };
      }
      return found !== undefined;
    }, 120_000);
    return found!;
  };
  const textOf = (ts: string) => slack.messages.get(ts)?.blocks[0]?.text?.text ?? '';
  const click = (userId: string, value: string) => send(url, clickRequest(SIGNING, { userId, actionId: APPROVE_ACTION, value, responseUrl: slack.responseUrl(userId) }));
  const slash = (userId: string, text: string) => send(url, commandRequest(SIGNING, { userId, text, responseUrl: slack.responseUrl(`cmd-${userId}`) }));

  it('the fleet waits at fleet-continue → the message is posted → a signed click approves → the fleet goes on; the messages show who approved and the counts', async () => {
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 2, approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    const fleetId = handle.workflowId;
    expect(fleetId).toMatch(/^wsmigrate-fleet\//);

    const gate = await postedFor(fleetId, 'fleet-continue');
    expect(gate.message.channel).toBe('C0FLEET');
    expect(textOf(gate.message.ts)).toMatch(/Canary: 1 of 1 ok/);

    // The canary's own event carried the fleet's counts to the notifier, and Slack shows them.
    const canaryNote = env.notes.find((n) => n.kind === 'fleet-canary-done' && n.workflowId === fleetId);
    expect(canaryNote?.counts).toMatchObject({ migrated: 1, failed: 0, restored: 0 });
    const canaryMessage = [...slack.messages.values()].find((m) => m.text.includes('canary done') && (m.blocks[0]?.text?.text ?? '').includes(fleetId));
    expect(canaryMessage?.blocks[0]?.text?.text).toMatch(/migrated: \*1\*/);

    // /wsmigrate status works for a fleet id (the fleet's progress query, not a workspace's).
    const status = await slash('UBOB', `status ${fleetId}`);
    expect(status.status).toBe(200);
    expect(status.body.text).toContain(`\`${fleetId}\`: *awaiting-approval*`);
    expect(status.body.text).toMatch(/migrated \*1\*/);
    expect(status.body.text).toContain('waiting for approval of `fleet-continue`');

    // A mapped user who is not an approver of this fleet is refused before anything reaches it.
    const bob = await click('UBOB', gate.raw);
    expect(bob.status).toBe(403);
    expect(bob.body.text).toMatch(/'bob' is not an approver for this run/);

    const ok = await click('UALICE', gate.raw);
    expect(ok.status).toBe(200);
    expect(ok.body.text).toMatch(/Approved `fleet-continue` of `wsmigrate-fleet\/.*` as \*alice\*/);
    await waitFor(() => /Approved\* `fleet-continue` by \*alice\* \(via slack\)/.test(textOf(gate.message.ts)), 30_000);
    expect(slack.messages.get(gate.message.ts)!.blocks.some((b) => b.type === 'actions')).toBe(false);

    // The fleet went on: the rest migrated, then it asks to archive the old version, also from Slack.
    const archive = await postedFor(fleetId, 'fleet-archive');
    const archiveButtons = slack.messages.get(archive.message.ts)!.blocks.find((b) => b.type === 'actions') as unknown as { elements: { confirm?: { title: { text: string } } }[] };
    expect(archiveButtons.elements[1].confirm?.title.text).toBe('Keep the old versions?');
    expect((await click('UALICE', archive.raw)).status).toBe(200);

    const result = (await handle.result()) as FleetResult;
    expect(result.phase).toBe('done');
    expect(result.summary).toMatchObject({ migrated: 3, failed: 0 });
    expect(result.archive?.archived.length).toBe(1);
    const progress = (await migrationStatus(env.t.client, fleetId)) as FleetProgress;
    expect(progress.approvals.map((a) => [a.gateId, a.approver, a.channel, a.slackUserId])).toEqual([
      ['fleet-continue', 'alice', 'slack', 'UALICE'],
      ['fleet-archive', 'alice', 'slack', 'UALICE'],
    ]);

    const done = env.notes.find((n) => n.kind === 'fleet-done' && n.workflowId === fleetId);
    expect(done?.counts).toMatchObject({ migrated: 3, failed: 0, 'needs-attention': 0 });
    expect(logs.some((l) => l.includes('"component":"chatops"') && l.includes('"msg":"decision sent"') && l.includes(fleetId))).toBe(true);
    expect(logs.join('\n')).not.toMatch(new RegExp(`${SIGNING}|${BOT}`));
  }, 300_000);

  it('/wsmigrate status of a failed fleet or migration says failed and the run\'s own reason, as `wsmigrate status` does', async () => {
    const fleet = await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, canary: 0, filters: { owners: ['nobody'] }, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    await expect(fleet.result()).rejects.toThrow();
    const shown = await slash('UBOB', `status ${fleet.workflowId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.text).toMatch(new RegExp(`^\`${fleet.workflowId}\`: \\*failed\\*`));
    expect(shown.body.text).toMatch(/\nreason: fleet of template coder\/\S+ refused before any change: Coder has no user 'nobody' \(--owner\)/);

    const ws = await startWorkspaceMigration(env.t.client, { owner: 'nobody', workspace: 'nothing', template: env.sim.template.name, targetVersionId: env.sim.template.activeVersionId, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    await expect(ws.result()).rejects.toThrow();
    const wsShown = await slash('UBOB', `status ${ws.workflowId}`);
    expect(wsShown.body.text).toMatch(new RegExp(`^\`${ws.workflowId}\`: \\*failed\\* \\(during preflight\\)\nreason: preflight failed for nobody/nothing: .*404`));
  }, 120_000);
});
