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
