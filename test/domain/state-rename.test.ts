import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateList } from '../../src/adapters/terraform/state-list';
import { memoizedOracle } from '../harness/oracle-memo';
import { renameStateTypes, StateRenameError, type RenameOptions } from '../../src/domain/state-rename';
import { expectedRename, textPieces } from './state/rename-oracle';

const fixture = (name: string): string => readFileSync(join(__dirname, '../fixtures/state', name), 'utf8');

function renameError(text: string, opts?: RenameOptions): StateRenameError {
  try {
    renameStateTypes(text, opts);
  } catch (e) {
    if (e instanceof StateRenameError) return e;
    throw e;
  }
  throw new Error('expected a StateRenameError');
}

const FOR_EACH_ADDRESSES = [
  'data.coder_workspace.me',
  'kubernetes_config_map_v1.settings["a"]',
  'kubernetes_config_map_v1.settings["b.c"]',
  'kubernetes_config_map_v1.settings["with \\"quote\\" & <tag>"]',
  'kubernetes_secret_v1.token["alice"]',
];
const MODULE_ADDRESSES = [
  'kubernetes_namespace_v1.ns',
  'module.kubernetes_secret.kubernetes_secret_v1.kubernetes_secret',
  'module.storage["k"].module.inner.kubernetes_persistent_volume_claim_v1.home',
  'module.workspace[1].kubernetes_deployment_v1.main[0]',
];
const COUNT_ADDRESSES = ['coder_agent.main', 'data.coder_workspace.me', 'kubernetes_deployment_v1.main[0]', 'kubernetes_persistent_volume_claim_v1.home[0]'];

/** Fixture, options, what `terraform state list` must print for the result, and the report's counts. */
const MIGRATED: [string, RenameOptions, string[], { resources: number; instances: number; dependencies: number; checkResults: number }][] = [
  ['count.tfstate', {}, COUNT_ADDRESSES, { resources: 2, instances: 2, dependencies: 1, checkResults: 0 }],
  ['for-each.tfstate', {}, FOR_EACH_ADDRESSES, { resources: 2, instances: 4, dependencies: 1, checkResults: 0 }],
  ['crlf.tfstate', {}, FOR_EACH_ADDRESSES, { resources: 2, instances: 4, dependencies: 1, checkResults: 0 }],
  ['modules.tfstate', {}, MODULE_ADDRESSES, { resources: 4, instances: 4, dependencies: 3, checkResults: 0 }],
  ['compact.tfstate', {}, MODULE_ADDRESSES, { resources: 4, instances: 4, dependencies: 3, checkResults: 0 }],
  [
    'data-sources.tfstate',
    {},
    ['data.kubernetes_all_namespaces.all', 'data.kubernetes_secret_v1.pull', 'kubernetes_pod_v1.p', 'module.net[0].data.kubernetes_namespace_v1.ns'],
    { resources: 3, instances: 3, dependencies: 2, checkResults: 0 },
  ],
  [
    'deposed-tainted.tfstate',
    {},
    ['kubernetes_deployment_v1.main[0]', 'kubernetes_deployment_v1.main[1]', 'kubernetes_service_v1.svc'],
    { resources: 2, instances: 3, dependencies: 2, checkResults: 0 },
  ],
  ['identity-private.tfstate', {}, ['kubernetes_deployment_v1.main["a"]'], { resources: 1, instances: 1, dependencies: 0, checkResults: 0 }],
  [
    'check-results.tfstate',
    {},
    ['kubernetes_deployment_v1.main["a"]', 'kubernetes_deployment_v1.main["b"]', 'module.ws[0].kubernetes_persistent_volume_claim_v1.home'],
    { resources: 2, instances: 3, dependencies: 0, checkResults: 5 },
  ],
  ['large-int.tfstate', {}, COUNT_ADDRESSES, { resources: 2, instances: 2, dependencies: 1, checkResults: 0 }],
  [
    'different-type.tfstate',
    { skipDifferent: true },
    ['kubernetes_cron_job.backup', 'kubernetes_deployment_v1.main', 'kubernetes_ingress.web[0]'],
    { resources: 1, instances: 1, dependencies: 0, checkResults: 0 },
  ],
];

describe('renameStateTypes on each fixture shape', () => {
  it.each(MIGRATED)('%s: Terraform reads back exactly the new addresses', async (name, opts, addresses, counts) => {
    const input = fixture(name);
    const { stateText, report } = renameStateTypes(input, opts);

    expect(report.counts).toEqual(counts);
    expect(report.alreadyMigrated).toBe(false);
    expect(report.lineage).toBe('3f5c1c2e-8a4b-4d7e-9f1a-2b3c4d5e6f70');
    // Serials above 2^53 cannot be exact in a JS number; the text is checked in the large-int test.
    if (report.serial.from < 2 ** 53) expect(report.serial.to).toBe(report.serial.from + 1);
    else expect(report.serial.to).toBeGreaterThan(report.serial.from);
    expect((await memoizedOracle(['state list', stateText], () => stateList(stateText))).sort()).toEqual([...addresses].sort());
  });

  it.each(MIGRATED.filter(([name]) => name !== 'large-int.tfstate'))(
    '%s: the document equals the object-level rename, and only renamed strings and the serial changed',
    (name, opts) => {
      const input = fixture(name);
      const { stateText } = renameStateTypes(input, opts);
      expect(JSON.parse(stateText)).toEqual(expectedRename(JSON.parse(input)));
      const before = textPieces(input);
      const after = textPieces(stateText);
      expect(after).toHaveLength(before.length);
      const changed = before.flatMap((piece, i) => (piece === after[i] ? [] : [{ was: piece, now: after[i], key: before[i - 1] }]));
      for (const { was, now, key } of changed) {
        if (was.startsWith('"')) {
          expect(JSON.parse(now)).toMatch(/kubernetes_[a-z_]+_v1/);
        } else {
          // The only other change: the number after "serial", with the whitespace around it kept.
          expect([key, was.replace(/\d+/, 'N')]).toEqual(['"serial"', now.replace(/\d+/, 'N')]);
        }
      }
    },
  );

  it('running it on its own output gives the same bytes and reports already migrated', () => {
    for (const [name, opts] of MIGRATED) {
      const once = renameStateTypes(fixture(name), opts).stateText;
      const twice = renameStateTypes(once, opts);
      expect([name, twice.stateText === once, twice.report.serial]).toEqual([name, true, { from: twice.report.serial.from, to: twice.report.serial.from }]);
      if (!opts.skipDifferent) expect(twice.report.alreadyMigrated).toBe(true);
    }
  });

  it('leaves an already migrated state byte-identical, serial unchanged', () => {
    const input = fixture('already-migrated.tfstate');
    const { stateText, report } = renameStateTypes(input);
    expect(stateText).toBe(input);
    expect(report).toEqual({
      alreadyMigrated: true,
      renamed: [],
      counts: { resources: 0, instances: 0, dependencies: 0, checkResults: 0 },
      refused: [],
      serial: { from: 12, to: 12 },
      lineage: '3f5c1c2e-8a4b-4d7e-9f1a-2b3c4d5e6f70',
    });
  });

  it('lists every instance old -> new, with keys and module prefixes, once per address even with a deposed object', () => {
    expect(renameStateTypes(fixture('deposed-tainted.tfstate')).report.renamed).toEqual([
      { from: 'kubernetes_deployment.main[0]', to: 'kubernetes_deployment_v1.main[0]' },
      { from: 'kubernetes_deployment.main[1]', to: 'kubernetes_deployment_v1.main[1]' },
      { from: 'kubernetes_service.svc', to: 'kubernetes_service_v1.svc' },
    ]);
    expect(renameStateTypes(fixture('modules.tfstate')).report.renamed).toContainEqual({
      from: 'module.storage["k"].module.inner.kubernetes_persistent_volume_claim.home',
      to: 'module.storage["k"].module.inner.kubernetes_persistent_volume_claim_v1.home',
    });
  });

  it('keeps integers above 2^53, decimal spellings and the serial exact', () => {
    const { stateText, report } = renameStateTypes(fixture('large-int.tfstate'));
    for (const raw of ['12345678901234567890123', '9007199254740993,\n', '0.1000000000000000055511151231257827', '1.50', '-0,', '1E-7']) {
      expect(stateText).toContain(raw);
    }
    expect(stateText).toContain('"serial": 9007199254740994,');
    expect(report.serial.to).toBeGreaterThan(2 ** 53);
  });

  it('keeps CRLF line ends, tabs and the missing final newline', () => {
    const input = fixture('crlf.tfstate');
    expect(input).toContain('\r\n\t');
    const { stateText } = renameStateTypes(input);
    expect(stateText.split('\r\n').length).toBe(input.split('\r\n').length);
    expect(stateText).not.toMatch(/[^\r]\n/);
    expect(stateText.endsWith('}')).toBe(true);
  });

  it('keeps compact JSON compact', () => {
    const input = fixture('compact.tfstate');
    const { stateText } = renameStateTypes(input);
    expect(stateText).not.toContain('\n');
    // 4 types and 3 dependencies gain "_v1"; nothing else grows (serial 7 -> 8).
    expect(stateText.length - input.length).toBe(7 * '_v1'.length);
  });

  it('keeps identity, private, sensitive paths, deposed keys, taint and unknown fields as they were', () => {
    const identity = renameStateTypes(fixture('identity-private.tfstate')).stateText;
    const doc = JSON.parse(identity);
    expect(doc.future_top_level_field).toEqual({ keep: 'me' });
    expect(doc.resources[0].instances[0]).toMatchObject({
      identity_schema_version: 1,
      identity: { kind: 'Deployment', name: 'idp' },
      future_instance_field: { x: [1, 2] },
      dependencies: ['kubernetes_namespace_v1.ns'],
    });
    const deposed = JSON.parse(renameStateTypes(fixture('deposed-tainted.tfstate')).stateText);
    expect(deposed.resources[0].instances.map((i: Record<string, unknown>) => [i.status, i.deposed, i.create_before_destroy])).toEqual([
      ['tainted', undefined, undefined],
      [undefined, '00c0ffee', true],
      [undefined, undefined, undefined],
    ]);
  });

  it('renames dependencies with module prefixes and data. addresses, and only resource check results', () => {
    const data = JSON.parse(renameStateTypes(fixture('data-sources.tfstate')).stateText);
    expect(data.resources[3].instances[0].dependencies).toEqual(['data.kubernetes_secret_v1.pull', 'module.net.data.kubernetes_namespace_v1.ns']);
    const checks = JSON.parse(renameStateTypes(fixture('check-results.tfstate')).stateText).check_results;
    expect(checks.map((c: { config_addr: string; objects: { object_addr: string }[] | null }) => [c.config_addr, (c.objects ?? []).map((o) => o.object_addr)])).toEqual([
      ['kubernetes_deployment_v1.main', ['kubernetes_deployment_v1.main["a"]', 'kubernetes_deployment_v1.main["b"]']],
      ['module.ws.kubernetes_persistent_volume_claim_v1.home', ['module.ws[0].kubernetes_persistent_volume_claim_v1.home']],
      ['output.kubernetes_deployment', ['output.kubernetes_deployment']],
      ['check.health', []],
    ]);
  });

  it('never renames NEVER_TOUCH types, yet renames a dependency of theirs on a deprecated type', async () => {
    const input = fixture('never-touch.tfstate');
    const { stateText, report } = renameStateTypes(input);
    expect(report.renamed).toEqual([{ from: 'kubernetes_config_map.cfg', to: 'kubernetes_config_map_v1.cfg' }]);
    expect(JSON.parse(stateText).resources[0]).toMatchObject({ type: 'kubernetes_config_map_v1_data', instances: [{ dependencies: ['kubernetes_config_map_v1.cfg'] }] });
    const listed = (text: string) => memoizedOracle(['state list', text], () => stateList(text));
    const before = (await listed(input)).filter((a) => a !== 'kubernetes_config_map.cfg');
    expect((await listed(stateText)).sort()).toEqual([...before, 'kubernetes_config_map_v1.cfg'].sort());
  });

  it('with skipDifferent, leaves DIFFERENT types and their dependents alone and lists each instance as refused', () => {
    const { stateText, report } = renameStateTypes(fixture('different-type.tfstate'), { skipDifferent: true });
    expect(report.refused.map((r) => [r.address, r.type])).toEqual([
      ['kubernetes_cron_job.backup', 'kubernetes_cron_job'],
      ['kubernetes_ingress.web[0]', 'kubernetes_ingress'],
    ]);
    for (const refused of report.refused) expect(refused.reason).toContain('needs strategy import');
    expect(JSON.parse(stateText).resources[2].instances[0].dependencies).toEqual(['kubernetes_cron_job.backup']);
  });

  it('with skipDifferent and only DIFFERENT types, writes nothing but does not claim the state is migrated', () => {
    const input = JSON.stringify({
      version: 4,
      serial: 3,
      lineage: 'l',
      resources: [{ mode: 'data', type: 'kubernetes_ingress', name: 'i', instances: [{ schema_version: 0, attributes: { id: 'coder/i' } }] }],
    });
    const { stateText, report } = renameStateTypes(input, { skipDifferent: true });
    expect(stateText).toBe(input);
    expect(report.alreadyMigrated).toBe(false);
    expect(report.serial).toEqual({ from: 3, to: 3 });
    expect(report.refused).toEqual([expect.objectContaining({ address: 'data.kubernetes_ingress.i', type: 'kubernetes_ingress' })]);
    expect(report.refused[0].reason).toMatch(/as a data source it needs no state change/);
  });
});

describe('renameStateTypes refusals', () => {
  it('refuses DIFFERENT types, naming each and the import strategy', () => {
    const error = renameError(fixture('different-type.tfstate'));
    expect(error.kind).toBe('refused');
    expect(error.problems.map((p) => p.address)).toEqual(['kubernetes_cron_job.backup', 'kubernetes_ingress.web']);
    expect(error.message).toContain('kubernetes_cron_job.backup: kubernetes_cron_job and kubernetes_cron_job_v1 are different implementations');
    expect(error.message).toContain('needs strategy import');
  });

  it('refuses a rename onto a _v1 twin already in state, naming both, without quoting state content', () => {
    const error = renameError(fixture('collision.tfstate'));
    expect(error.kind).toBe('refused');
    expect(error.problems).toEqual([{ address: 'kubernetes_deployment.main', message: expect.stringContaining('collide with kubernetes_deployment_v1.main') }]);
    expect(error.message).not.toMatch(/secret-token|coder\/col/);
  });

  it('refuses two deprecated resources whose renames would land on one address', () => {
    // kubernetes_persistent_volume_claim and its data twin differ by mode, so they do not collide; a
    // module instance written twice (once per spelling) does.
    const resource = (type: string) => ({ module: 'module.m', mode: 'managed', type, name: 'home', instances: [] });
    const input = JSON.stringify({ version: 4, serial: 1, lineage: 'l', resources: [resource('kubernetes_service'), resource('kubernetes_service_v1')] });
    expect(renameError(input).problems.map((p) => p.address)).toEqual(['module.m.kubernetes_service.home']);
  });

  it.each([
    ['v3.tfstate', /format version 3.*Terraform 0\.12/],
    ['bad-json.tfstate', /not valid JSON: line 6, column 3/],
  ])('refuses %s with a message that says what and where', (name, message) => {
    const error = renameError(fixture(name));
    expect(error.kind).toBe('invalid-state');
    expect(error.problems).toHaveLength(1);
    expect(error.message).toMatch(message);
  });

  it('refuses a v4 state without resources', () => {
    expect(renameError('{"version": 4, "serial": 1, "lineage": "x"}').message).toMatch(/resources: missing/);
  });
});

describe('dependencies that name a DIFFERENT type', () => {
  it('are left as they are when the import strategy keeps that type (skipDifferent): the entry they name still has it', () => {
    const text = JSON.stringify({
      version: 4,
      terraform_version: '1.9.0',
      serial: 3,
      lineage: 'l-1',
      outputs: {},
      resources: [
        { mode: 'managed', type: 'kubernetes_ingress', name: 'web', provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]', instances: [{ schema_version: 0, attributes: { id: 'coder/web' } }] },
        {
          mode: 'managed',
          type: 'kubernetes_deployment',
          name: 'main',
          provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
          instances: [{ schema_version: 1, attributes: { id: 'coder/main' }, dependencies: ['kubernetes_ingress.web', 'kubernetes_service.api'] }],
        },
      ],
    });
    const out = JSON.parse(renameStateTypes(text, { skipDifferent: true }).stateText) as { resources: { type: string; instances: { dependencies?: string[] }[] }[] };
    expect(out.resources.map((r) => r.type)).toEqual(['kubernetes_ingress', 'kubernetes_deployment_v1']);
    expect(out.resources[1].instances[0].dependencies).toEqual(['kubernetes_ingress.web', 'kubernetes_service_v1.api']);
  });
});
