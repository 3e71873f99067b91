import { decodeButtonValue, encodeButtonValue } from '../../src/domain/approval-button';
import { emptyCounts } from '../../src/domain/fleet-progress';
import { countsRecord, fleetDoneText, summaryOf } from '../../src/domain/fleet-summary';
import { deprecatedTypesIn } from '../../src/domain/template-deprecations';
import { templateProtection } from '../../src/domain/template-protection';

const files = (...f: [string, string][]) => f.map(([path, content]) => ({ path, content }));

describe('templateProtection and deprecatedTypesIn', () => {
  test('a version still on deprecated types: its annotated resources and the deprecated types, modules and data sources included', () => {
    const version = files(
      ['main.tf', '# wsmigrate:protect\nresource "kubernetes_secret" "ssh" {}\nmodule "pod" { source = "./modules/pod" }\ndata "kubernetes_config_map" "c" {}\n'],
      ['modules/pod/main.tf', 'resource "kubernetes_pod" "p" {}\nresource "kubernetes_secret" "again" {}\nresource "coder_agent" "a" {}\n'],
      ['README.md', 'resource "kubernetes_deployment" "doc" {}'],
    );
    expect(templateProtection(version)).toEqual({ annotatedAddresses: ['kubernetes_secret.ssh'], usesV1Types: false });
    expect(deprecatedTypesIn(version)).toEqual(['data.kubernetes_config_map', 'kubernetes_pod', 'kubernetes_secret']);
  });

  test('a version on the _v1 types (a deprecated data source does not count for usesV1Types)', () => {
    const version = files(['main.tf', 'resource "kubernetes_secret_v1" "ssh" {}\ndata "kubernetes_secret" "s" {}\nresource "coder_agent" "a" {}\n']);
    expect(templateProtection(version)).toEqual({ annotatedAddresses: [], usesV1Types: true });
    expect(deprecatedTypesIn(version)).toEqual(['data.kubernetes_secret']);
    expect(deprecatedTypesIn(files(['main.tf', 'resource "kubernetes_pod_v1" "p" {}\n']))).toEqual([]);
  });
});

describe('approval buttons', () => {
  test('carry back exactly the workflow, gate and plan hash', () => {
    const v = { workflowId: 'wsmigrate-ws-1', gateId: 'apply', planHash: 'ab12' };
    expect(encodeButtonValue(v)).toBe('{"w":"wsmigrate-ws-1","g":"apply","p":"ab12"}');
    expect(decodeButtonValue(encodeButtonValue(v))).toEqual(v);
  });

  test.each<[string, unknown]>([
    ['not a string', { w: 'a', g: 'b', p: 'c' }],
    ['not JSON', '{w:'],
    ['a field missing', '{"w":"a","g":"b"}'],
    ['a field of another type', '{"w":"a","g":"b","p":1}'],
    ['the workflow id not a string', '{"w":1,"g":"b","p":"c"}'],
    ['the gate not a string', '{"w":"a","g":null,"p":"c"}'],
    ['longer than 2000 characters', JSON.stringify({ w: 'a'.repeat(2000), g: 'b', p: 'c' })],
  ])('a value %s is no button value', (_title, raw) => {
    expect(decodeButtonValue(raw)).toBeUndefined();
  });

  test('a value of exactly 2000 characters is read', () => {
    const raw = JSON.stringify({ w: 'a'.repeat(2000 - '{"w":"","g":"b","p":"c"}'.length), g: 'b', p: 'c' });
    expect(raw).toHaveLength(2000);
    expect(decodeButtonValue(raw)?.gateId).toBe('b');
  });
});

describe('fleet summary', () => {
  test('the counts in words, with the recovered and the remaining mentioned only when there are any', () => {
    const c = { ...emptyCounts(), migrated: 5, 'already-migrated': 2, restored: 1, 'needs-attention': 3, failed: 4, skipped: 6, 'dry-run': 7, pvcUidsKept: 8 };
    const s = summaryOf(c);
    expect(s).toEqual({ migrated: 5, alreadyMigrated: 2, restored: 1, needsAttention: 3, failed: 4, skipped: 6, dryRun: 7, pvcUidsKept: 8, recovered: 0, prebuilt: 0, dormant: 0 });
    expect(fleetDoneText(s, false)).toBe('5 migrated, 2 already migrated, 1 restored, 3 need attention, 4 failed, 6 skipped; 8 PVC uid(s) kept.');
    // Of the skipped, the dormant ones say who must act.
    expect(fleetDoneText({ ...s, dormant: 2 }, false)).toBe(
      '5 migrated, 2 already migrated, 1 restored, 3 need attention, 4 failed, 6 skipped (2 dormant: for each, its owner or an admin makes it active, then run the fleet again); 8 PVC uid(s) kept.',
    );
    expect(fleetDoneText({ ...s, recovered: 2 }, true)).toBe(
      '5 migrated (2 of them recovered from a damaged state), 2 already migrated, 1 restored, 3 need attention, 4 failed, 6 skipped; 8 PVC uid(s) kept. More workspaces remain for a later run.',
    );
    expect(summaryOf({ ...c, recovered: 2 }).recovered).toBe(2);
    expect(fleetDoneText({ ...s, prebuilt: 3 }, false)).toBe(
      '5 migrated, 2 already migrated, 1 restored, 3 need attention, 4 failed, 6 skipped, 3 prebuilt left to Coder (its reconciler replaces them on the active version); 8 PVC uid(s) kept.',
    );
    // counts written before `recovered` existed (a fleet's history from an older worker) have none
    expect(summaryOf({ ...c, recovered: undefined as unknown as number }).recovered).toBe(0);
    expect(countsRecord(c)).toEqual(c);
    expect(countsRecord(c)).not.toBe(c);
  });
});
