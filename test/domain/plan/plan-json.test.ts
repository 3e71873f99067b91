import {
  PlanInputError,
  plannedChangesFromShowJson,
  plannedChangesFromStream,
  plannedChangesFromText,
} from '../../../src/domain/plan/plan-json';
import { readFixture } from './fixtures';

const fromFixture = (relative: string) => plannedChangesFromText(readFixture(relative), relative);
const byAddress = (changes: ReturnType<typeof fromFixture>) => new Map(changes.map((c) => [c.address, c]));

describe('reading terraform show -json (captured from Terraform 1.11.4)', () => {
  const changes = byAddress(fromFixture('real/terraform-data-mix.show.json'));

  it('reads every instance, no-ops included', () => {
    expect([...changes.keys()].sort()).toEqual(
      [
        'module.m.terraform_data.inner',
        'terraform_data.a',
        'terraform_data.b',
        'terraform_data.cbd',
        'terraform_data.cnt[0]',
        'terraform_data.cnt[1]',
        'terraform_data.fe["k1"]',
        'terraform_data.fe["k2"]',
        'terraform_data.gone',
        'terraform_data.keep',
        'terraform_data.mv2',
        'terraform_data.r',
      ].sort(),
    );
  });

  it('keeps actions, reasons, indexes, modules, replace paths and moves as Terraform wrote them', () => {
    expect(changes.get('terraform_data.r')).toMatchObject({
      actions: ['delete', 'create'],
      reason: 'replace_because_cannot_update',
      replacePaths: [['triggers_replace']],
    });
    expect(changes.get('terraform_data.cbd')?.actions).toEqual(['create', 'delete']);
    expect(changes.get('terraform_data.keep')).toMatchObject({ actions: ['forget'], reason: 'delete_because_no_resource_config' });
    expect(changes.get('terraform_data.mv2')).toMatchObject({ actions: ['no-op'], previousAddress: 'terraform_data.mv' });
    expect(changes.get('terraform_data.cnt[1]')).toMatchObject({ index: 1, reason: 'delete_because_count_index' });
    expect(changes.get('terraform_data.fe["k2"]')).toMatchObject({ index: 'k2', reason: 'delete_because_each_key' });
    expect(changes.get('module.m.terraform_data.inner')).toMatchObject({ module: 'module.m', actions: ['update'] });
  });

  it('keeps no attribute values from the plan', () => {
    const text = JSON.stringify(fromFixture('show/rename-old-to-new.json'));
    expect(text).not.toContain('s3cr3t-sentinel-token');
    expect(text).not.toContain('before');
  });
});

describe('reading terraform plan -json lines', () => {
  it('agrees with the show format on every change the stream lists (captured from Terraform 1.11.4)', () => {
    const shown = byAddress(fromFixture('real/terraform-data-mix.show.json'));
    const streamed = fromFixture('real/terraform-data-mix.plan.jsonl');
    expect(streamed.length).toBeGreaterThan(0);
    for (const change of streamed) {
      const same = shown.get(change.address);
      expect(same).toBeDefined();
      // The stream folds both replace orders into "replace"; everything else maps one to one.
      const actions = (a: string[]) => [...a].sort();
      expect(actions(change.actions)).toEqual(actions(same!.actions));
      expect(change.previousAddress).toBe(same!.previousAddress);
      expect(change.module).toBe(same!.module);
      expect(change.index).toBe(same!.index);
    }
    // No-ops are not streamed, except moves.
    expect(streamed.map((c) => c.address)).not.toContain('terraform_data.cnt[0]');
  });

  it('maps every streamed action word and takes the mode from the address', () => {
    const changes = byAddress(fromFixture('stream/rename-mixed.plan.jsonl'));
    expect(changes.get('kubernetes_persistent_volume_claim.home')).toMatchObject({
      mode: 'managed',
      actions: ['delete'],
      reason: 'delete_because_no_resource_config',
    });
    expect(changes.get('module.ws[0].kubernetes_deployment.main[0]')).toMatchObject({ module: 'module.ws[0]', index: 0 });
    expect(changes.get('kubernetes_secret_v1.b')).toMatchObject({ actions: ['no-op'], previousAddress: 'kubernetes_secret_v1.a' });
    expect(changes.get('kubernetes_config_map_v1.keep')?.actions).toEqual(['forget']);
    expect(changes.get('data.kubernetes_secret_v1.creds')).toMatchObject({ mode: 'data', actions: ['read'] });
    expect(changes.get('kubernetes_service_v1.svc')).toMatchObject({ actions: ['delete', 'create'], reason: 'cannot_update' });
  });

  it('treats a single streamed line as the stream format', () => {
    const line = readFixture('stream/rename-mixed.plan.jsonl').split('\n')[2];
    expect(plannedChangesFromText(line, 'one.jsonl')).toEqual([
      expect.objectContaining({ address: 'kubernetes_persistent_volume_claim.home', actions: ['delete'] }),
    ]);
  });
});

describe('refusing what is not a readable plan', () => {
  it.each([
    ['bad/not-json.txt', /bad\/not-json\.txt: not JSON/],
    ['bad/state-not-plan.json', /bad\/state-not-plan\.json: this is a Terraform state, not a plan/],
    ['bad/format-version-2.json', /format_version "2\.0" is not 1\.x/],
    ['bad/unknown-action.json', /resource_changes\[0\]\.change\.actions\[0\] \(kubernetes_secret_v1\.x\)/],
    ['bad/missing-actions.json', /resource_changes\[0\]\.change\.actions \(kubernetes_secret_v1\.x\)/],
    ['bad/stream-bad-line.jsonl', /bad\/stream-bad-line\.jsonl:2: unreadable planned_change/],
  ])('%s', (relative, message) => {
    expect(() => fromFixture(relative)).toThrow(PlanInputError);
    expect(() => fromFixture(relative)).toThrow(message);
  });

  it('never echoes values from the refused input', () => {
    let message = '';
    try {
      fromFixture('bad/unknown-action.json');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('bad/unknown-action.json');
    expect(message).not.toContain('s3cr3t-sentinel-token');
  });

  it('refuses an empty file, a JSON array and JSON lines that are not Terraform UI lines', () => {
    expect(() => plannedChangesFromText('  \n', 'p.json')).toThrow('p.json: empty file');
    expect(() => plannedChangesFromShowJson([], 'p.json')).toThrow('p.json: not a plan');
    expect(() => plannedChangesFromStream('{"a":1}\n{"b":2}\n', 'p.jsonl')).toThrow('p.jsonl: not a plan');
  });

  it('reads a plan with no resource_changes as no changes', () => {
    expect(fromFixture('show/empty.json')).toEqual([]);
  });
});

describe('plan reading, exact results and messages', () => {
  const refusal = (read: () => unknown): string => {
    try {
      read();
    } catch (e) {
      if (e instanceof PlanInputError) return e.message;
      throw e;
    }
    throw new Error('expected a PlanInputError');
  };
  const tail = "Re-create the JSON with a Terraform 1.x binary.";

  it.each<[string, unknown, string]>([
    ['an object without format_version', { version: 4 }, `s: not a plan: no "format_version". Produce it with 'terraform show -json PLANFILE' (or 'terraform plan -json').`],
    ['a state by its lineage', { lineage: 'x' }, "s: this is a Terraform state, not a plan. Run 'terraform plan -out=PLANFILE' then 'terraform show -json PLANFILE'."],
    ['a state by version and resources', { version: 4, resources: [] }, "s: this is a Terraform state, not a plan. Run 'terraform plan -out=PLANFILE' then 'terraform show -json PLANFILE'."],
    ['format 1.2.3', { format_version: '1.2.3' }, `s: plan format_version "1.2.3" is not 1.x; wsmigrate reads the 1.x plan format of Terraform 1.x. ${tail}`],
    ['format 11.2', { format_version: '11.2' }, `s: plan format_version "11.2" is not 1.x; wsmigrate reads the 1.x plan format of Terraform 1.x. ${tail}`],
    ['format v1.2', { format_version: 'v1.2' }, `s: plan format_version "v1.2" is not 1.x; wsmigrate reads the 1.x plan format of Terraform 1.x. ${tail}`],
    ['a numeric format_version', { format_version: 1 }, 's: not a readable plan: format_version: Invalid input: expected string, received number'],
    [
      'six issues: five named, each with the address of its change when it has one',
      { format_version: '1.2', resource_changes: [{ address: 'a.b' }, 3, {}] },
      's: not a readable plan: resource_changes[0].mode (a.b): Invalid option: expected one of "managed"|"data"; resource_changes[0].type (a.b): Invalid input: expected string, received undefined; ' +
        'resource_changes[0].name (a.b): Invalid input: expected string, received undefined; resource_changes[0].change (a.b): Invalid input: expected object, received undefined; ' +
        'resource_changes[1]: Invalid input: expected object, received number',
    ],
    ['a JSON array', [], "s: not a plan: expected a JSON object from 'terraform show -json PLANFILE'"],
    ['null', null, "s: not a plan: expected a JSON object from 'terraform show -json PLANFILE'"],
  ])('show JSON: %s', (_, json, message) => {
    expect(refusal(() => plannedChangesFromShowJson(json, 's'))).toBe(message);
  });

  it('accepts format 1.0 and 1.12', () => {
    expect(plannedChangesFromShowJson({ format_version: '1.0' }, 's')).toEqual([]);
    expect(plannedChangesFromShowJson({ format_version: '1.12', resource_changes: [] }, 's')).toEqual([]);
  });

  it('leaves out the optional fields Terraform wrote empty, null or not at all', () => {
    const change = { address: 'module.m[0].t.n["k"]', module_address: 'module.m[0]', previous_address: '', mode: 'managed', type: 't', name: 'n', index: null, deposed: '', action_reason: '', change: { actions: ['update'], replace_paths: [] } };
    expect(plannedChangesFromShowJson({ format_version: '1.2', resource_changes: [change] }, 's')).toEqual([
      { address: 'module.m[0].t.n["k"]', module: 'module.m[0]', mode: 'managed', type: 't', name: 'n', actions: ['update'], replacePaths: [] },
    ]);
    const bare = { address: 't.n', mode: 'managed', type: 't', name: 'n', change: { actions: ['create'] } };
    expect(Object.keys(plannedChangesFromShowJson({ format_version: '1.2', resource_changes: [bare] }, 's')[0])).toEqual(['address', 'mode', 'type', 'name', 'actions']);
    const full = { ...bare, previous_address: 't.o', module_address: '', index: 0, deposed: 'd1', action_reason: 'r', change: { actions: ['delete'], replace_paths: [['x']] } };
    expect(plannedChangesFromShowJson({ format_version: '1.2', resource_changes: [full] }, 's')).toEqual([
      { address: 't.n', previousAddress: 't.o', mode: 'managed', type: 't', name: 'n', index: 0, deposed: 'd1', actions: ['delete'], reason: 'r', replacePaths: [['x']] },
    ]);
  });

  const line = (resource: object, action: string, more: object = {}) => JSON.stringify({ type: 'planned_change', change: { resource, action, ...more } });
  const res = (addr: string, more: object = {}) => ({ addr, resource_type: 't', resource_name: 'n', ...more });

  it.each([
    ['noop', ['no-op']],
    ['create', ['create']],
    ['read', ['read']],
    ['update', ['update']],
    ['replace', ['delete', 'create']],
    ['delete', ['delete']],
    ['move', ['no-op']],
    ['import', ['no-op']],
    ['remove', ['forget']],
  ])('the streamed action %s is %j', (action, actions) => {
    expect(plannedChangesFromStream(`{"type":"version"}\n${line(res('t.n'), action)}`, 's')).toEqual([{ address: 't.n', mode: 'managed', type: 't', name: 'n', actions }]);
  });

  it('streamed lines: the mode from the address, CRLF line ends, a previous address only when it differs, null and empty fields left out', () => {
    const text = [
      '{"type":"version","@message":"Terraform 1.11.4"}',
      line(res('module.m.data.t.n[0]', { module: 'module.m', resource_key: 0 }), 'move', { previous_resource: res('module.m.data.t.n[0]') }),
      line(res('t.n', { resource_key: null, module: '' }), 'update', { reason: '' }),
      line(res('t.n["k"]', { resource_key: 'k' }), 'delete', { previous_resource: res('t.o["k"]'), reason: 'delete_because_each_key' }),
    ].join('\r\n');
    expect(plannedChangesFromStream(text, 's')).toEqual([
      { address: 'module.m.data.t.n[0]', module: 'module.m', mode: 'data', type: 't', name: 'n', index: 0, actions: ['no-op'] },
      { address: 't.n', mode: 'managed', type: 't', name: 'n', actions: ['update'] },
      { address: 't.n["k"]', previousAddress: 't.o["k"]', mode: 'managed', type: 't', name: 'n', index: 'k', actions: ['delete'], reason: 'delete_because_each_key' },
    ]);
  });

  it.each([
    ['a bad address, with its line', `{"type":"version"}\n${line(res('t..n'), 'noop')}`, 's:2: "t..n" is not a resource address: expected a name at ".n"'],
    [
      'an unreadable line, with its line and at most five issues',
      '{"type":"version"}\n{"type":"planned_change","change":{"resource":{"addr":1},"action":"zap"}}',
      's:2: unreadable planned_change: change.resource.addr: Invalid input: expected string, received number; change.resource.resource_type: Invalid input: expected string, received undefined; ' +
        'change.resource.resource_name: Invalid input: expected string, received undefined; change.action: Invalid option: expected one of "noop"|"create"|"read"|"update"|"replace"|"delete"|"move"|"import"|"remove"',
    ],
    ['lines that are not UI lines', '   {"type": 3}\n[1]\n{bad\n{"@message": "m"}', "s: not a plan: neither a 'terraform show -json PLANFILE' document nor 'terraform plan -json' lines"],
  ])('stream: %s', (_, text, message) => {
    expect(refusal(() => plannedChangesFromStream(text, 's'))).toBe(message);
  });

  it('skips non-JSON lines and other message types around the planned changes, counting lines from 1', () => {
    const text = `warning: something leaked\n  {"type":"version"}  \n{not json\n${line(res('t.n'), 'create')}\n{"type":"change_summary"}\n${line(res('t.x'), 'noop')}`;
    expect(plannedChangesFromStream(text, 's').map((c) => c.address)).toEqual(['t.n', 't.x']);
    expect(refusal(() => plannedChangesFromStream(`{"type":"version"}\n\n${line(res('t..x'), 'noop')}`, 's'))).toMatch(/^s:3: /);
  });

  it.each([
    ['a show document', '{"format_version":"1.0"}', []],
    ['one UI line as a whole document', '{"type":"version","@message":"m"}', []],
    ['a UI line without @message is no stream line', '{"type":"version"}', 'not a plan: no "format_version"'],
    ['text with a JSON line after others', 'x\n  {"type":"planned_change"}', 's:2: unreadable planned_change: change: Invalid input: expected object, received undefined'],
    ['text with no line opening a brace', 'nope\n[1]', "s: not JSON: expected 'terraform show -json PLANFILE' or 'terraform plan -json' output"],
    ['only whitespace', ' \t\r\n', 's: empty file: expected a plan in JSON'],
  ])('text: %s', (_, text, expected) => {
    if (Array.isArray(expected)) return expect(plannedChangesFromText(text, 's')).toEqual(expected);
    const message = refusal(() => plannedChangesFromText(text, 's'));
    return expected.startsWith('s') ? expect(message).toBe(expected) : expect(message).toContain(expected);
  });
});
