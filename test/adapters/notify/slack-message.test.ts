import { slackMessage } from '../../../src/adapters/notify/slack-message';
import { decodeButtonValue, encodeButtonValue } from '../../../src/domain/approval-button';

describe('slackMessage', () => {
  const base = { workflowId: 'wsmigrate-fleet/coder/k8s', subject: 'Fleet done: k8s', text: '40 workspaces' };

  it('shows a fleet summary with its counts and no buttons', () => {
    const m = slackMessage({ ...base, kind: 'fleet-done', counts: { migrated: 38, restored: 1, 'needs-attention': 1 } });
    expect(m.text).toBe('Fleet done: k8s');
    expect(m.blocks).toHaveLength(1);
    expect((m.blocks[0].text as { text: string }).text).toMatch(/:checkered_flag: \*Fleet done: k8s\*[\s\S]*migrated: \*38\* · restored: \*1\* · needs-attention: \*1\*/);
  });

  it('puts buttons on a fleet gate like on any other, carrying its workflow id, gate and plan', () => {
    const m = slackMessage({ ...base, kind: 'approval-requested', subject: 'Approval needed: canary', gateId: 'canary', planHash: 'canary:3/3' });
    const actions = m.blocks.find((b) => b.type === 'actions') as { elements: { value: string; style: string; confirm?: unknown }[] };
    expect(actions.elements.map((e) => e.style)).toEqual(['primary', 'danger']);
    expect(actions.elements[1].confirm).toBeDefined();
    expect(decodeButtonValue(actions.elements[0].value)).toEqual({ workflowId: base.workflowId, gateId: 'canary', planHash: 'canary:3/3' });
  });

  it('an open gate says on whom it waits; a closed one says who decided instead', () => {
    const open = slackMessage({ ...base, kind: 'approval-requested', subject: 'Approval needed: apply', gateId: 'apply', planHash: 'sha256:x', approvers: 'alice, carol' });
    expect((open.blocks[0] as { text: { text: string } }).text.text.split('\n')).toContain('Approvers: alice, carol');
    const closed = slackMessage({ ...base, kind: 'approval-closed', subject: 'Approved: apply', gateId: 'apply', approvers: 'alice, carol', decision: { approver: 'alice', decision: 'approve', channel: 'cli' } });
    expect(JSON.stringify(closed.blocks)).not.toContain('Approvers:');
  });

  it('escapes Slack markup in names and summaries', () => {
    const m = slackMessage({ ...base, kind: 'restored', subject: 'Restored <!channel>', text: 'a & b' });
    expect(JSON.stringify(m.blocks)).not.toContain('<!channel>');
    expect(JSON.stringify(m.blocks)).toContain('&lt;!channel&gt;');
    expect(m.text).toBe('Restored &lt;!channel&gt;');
  });

  it('button values round-trip and anything else decodes to nothing', () => {
    const v = { workflowId: 'wsmigrate/k8s/alice/dev', gateId: 'apply', planHash: 'sha256:x' };
    expect(decodeButtonValue(encodeButtonValue(v))).toEqual(v);
    for (const bad of [undefined, 42, '', 'not json', '{"w":1,"g":"a","p":"b"}', 'x'.repeat(2001)]) expect(decodeButtonValue(bad)).toBeUndefined();
  });
});
