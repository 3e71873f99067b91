import { isPersonWait, waitLines, waitsOnPeople, waitTag, type FleetWait } from '../../src/domain/fleet-waits';

const gate: FleetWait = { kind: 'gate', workflowId: 'wsmigrate-fleet/coder/k8s', gateId: 'fleet-budget', since: '2026-12-01T10:00:00Z' };
const childGate: FleetWait = { kind: 'child-gate', workflowId: 'wsmigrate/coder/alice/dev', gateId: 'apply' };
const templateGate: FleetWait = { kind: 'child-gate', workflowId: 'wsmigrate-template/coder/k8s', gateId: 'template-push', since: 'noon' };
const retrying: FleetWait = { kind: 'retrying', workflowId: 'wsmigrate/coder/bob/dev', activity: 'stopWorkspace', attempt: 3, maximumAttempts: 10, lastError: `503 ${'x'.repeat(400)}` };
const bare: FleetWait = { kind: 'retrying', workflowId: 'wsmigrate/coder/bob/dev', activity: 'pushTemplate', attempt: 2 };
const control: FleetWait = { kind: 'control', action: 'pause', by: 'alice', until: 'the running migrations end' };

describe('fleet waits', () => {
  test('one line per wait, each naming the command that ends it', () => {
    const lines = waitLines([gate, childGate, templateGate, retrying, bare, control]);
    expect(lines.slice(0, 3)).toEqual([
      "waits for approval of 'fleet-budget' since 2026-12-01T10:00:00Z: wsmigrate approve wsmigrate-fleet/coder/k8s --approver <you>",
      "waits for wsmigrate/coder/alice/dev at 'apply': wsmigrate approve wsmigrate/coder/alice/dev --approver <you>",
      "waits for wsmigrate-template/coder/k8s at 'template-push' since noon: wsmigrate approve wsmigrate-template/coder/k8s --approver <you>",
    ]);
    expect(lines[3]).toBe(`waits on stopWorkspace of wsmigrate/coder/bob/dev, retrying: attempt 3 of 10, last error: 503 ${'x'.repeat(295)}…`);
    expect(lines.slice(4)).toEqual(['waits on pushTemplate of wsmigrate/coder/bob/dev, retrying: attempt 2', 'pause by alice pending until the running migrations end']);
    expect(waitLines([{ ...bare, lastError: 'x'.repeat(300) }])[0].endsWith(`last error: ${'x'.repeat(300)}`)).toBe(true);
  });

  test('the progress bar tag: a person first, then an outage, then anything else', () => {
    expect(waitTag([])).toBeUndefined();
    expect(waitTag([control, retrying, gate])).toBe("awaiting 'fleet-budget'");
    expect(waitTag([control, bare, childGate])).toBe("awaiting alice/dev at 'apply'");
    expect(waitTag([templateGate])).toBe("awaiting template coder/k8s at 'template-push'");
    expect(waitTag([control, retrying])).toBe(`stopWorkspace retrying (attempt 3/10: 503 ${'x'.repeat(75)}…)`);
    expect(waitTag([bare])).toBe('pushTemplate retrying (attempt 2)');
    expect(waitTag([control])).toBe('pause pending');
    expect([gate, childGate, retrying, control].map(isPersonWait)).toEqual([true, true, false, false]);
  });

  test('a silent step names the workspace, the step, the worker and the heartbeat timeout; unread children are counted', () => {
    const silent: FleetWait = { kind: 'silent', workflowId: 'wsmigrate/k8s/bob/dev-6', activity: 'buildWithStateAndCheck', worker: '4711@host-a', silentMs: 80_000, heartbeatTimeoutMs: 120_000 };
    const due: FleetWait = { ...silent, silentMs: 121_000 };
    const unknownTimeout: FleetWait = { kind: 'silent', workflowId: 'wsmigrate/k8s/bob/dev-7', activity: 'stopWorkspace', silentMs: 95_000 };
    const unread: FleetWait = { kind: 'unread', workflowId: 'wsmigrate-fleet/coder/k8s', count: 5, read: 10 };
    expect(waitLines([silent, due, unknownTimeout, unread])).toEqual([
      "bob/dev-6: step 'buildWithStateAndCheck' on worker 4711@host-a silent for 1m20s (heartbeat timeout 2m00s): if that worker is gone, Temporal retries it on another worker once the heartbeat timeout has passed (wsmigrate status wsmigrate/k8s/bob/dev-6)",
      "bob/dev-6: step 'buildWithStateAndCheck' on worker 4711@host-a silent for 2m01s (heartbeat timeout 2m00s): Temporal retries it on another worker (wsmigrate status wsmigrate/k8s/bob/dev-6)",
      "bob/dev-7: step 'stopWorkspace' on its worker silent for 1m35s (heartbeat timeout 2m unless the run set heartbeatTimeout): if that worker is gone, Temporal retries it on another worker once the heartbeat timeout has passed (wsmigrate status wsmigrate/k8s/bob/dev-7)",
      '5 more running migration(s) not read for stuck steps (the 10 running longest were): wsmigrate status <id> reads one',
    ]);
    expect(waitTag([unread, silent, control])).toBe('bob/dev-6 buildWithStateAndCheck silent 1m20s');
    expect(waitTag([silent, retrying])).toBe(`stopWorkspace retrying (attempt 3/10: 503 ${'x'.repeat(75)}…)`);
    expect(waitTag([unread])).toBeUndefined();
  });

  test.each<[string, { ownGate: boolean; stage: string; running: number; childrenAtGates: number }, boolean]>([
    ['its own gate', { ownGate: true, stage: 'workspaces', running: 4, childrenAtGates: 0 }, true],
    ['no child at a gate', { ownGate: false, stage: 'template', running: 1, childrenAtGates: 0 }, false],
    ['the template child at its gate', { ownGate: false, stage: 'template', running: 1, childrenAtGates: 1 }, true],
    ['every running migration at a gate', { ownGate: false, stage: 'workspaces', running: 2, childrenAtGates: 2 }, true],
    ['some migrations still moving', { ownGate: false, stage: 'workspaces', running: 3, childrenAtGates: 2 }, false],
  ])('waitsOnPeople: %s', (_title, s, expected) => {
    expect(waitsOnPeople(s)).toBe(expected);
  });
});
