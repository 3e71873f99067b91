import type { ClassifiedChange } from '../../../src/domain/plan/classify';
import { planGuardVerdict, type Transition } from '../../../src/domain/plan/guard';

/**
 * What the guard tells the person who reads its verdict: for each kind of destroying change, the
 * exact words that say what would be lost and how to fix it. A wrong or empty reason is a user
 * told nothing, so each reason is asserted whole.
 */
const PVC = 'kubernetes_persistent_volume_claim_v1';

function change(kind: ClassifiedChange['kind'], more: Partial<ClassifiedChange> = {}): ClassifiedChange {
  return { kind, address: `${PVC}.home`, type: PVC, mode: 'managed', configAddress: `${PVC}.home`, ...more };
}
const pod = (kind: ClassifiedChange['kind'], more: Partial<ClassifiedChange> = {}) =>
  change(kind, { address: 'kubernetes_pod_v1.main[0]', type: 'kubernetes_pod_v1', configAddress: 'kubernetes_pod_v1.main', ...more });
const only = (c: ClassifiedChange, transition: Transition = 'start', protectedAddresses: string[] = []) => planGuardVerdict([c], { transition, protectedAddresses }).reasons;

describe('the plan guard explains each destroying change', () => {
  it('a protected delete says what is deleted, why, and the removed block that keeps it', () => {
    expect(only(change('delete', { reason: 'delete_because_no_resource_config' }))).toEqual([
      {
        address: `${PVC}.home`,
        kind: 'delete',
        severity: 'deny',
        message:
          `protected ${PVC}.home would be deleted in a start, outside a workspace delete (delete_because_no_resource_config). ` +
          `Keep it in the template, or add removed { from = ${PVC}.home lifecycle { destroy = false } }.`,
      },
    ]);
    expect(only(change('delete'), 'stop')[0].message).toBe(
      `protected ${PVC}.home would be deleted in a stop, outside a workspace delete. Keep it in the template, or add removed { from = ${PVC}.home lifecycle { destroy = false } }.`,
    );
  });

  it('a protected replace names the reason and what was assumed, and where to look', () => {
    expect(only(change('replace', { reason: 'replace_because_cannot_update', assumed: 'count = 1' }))[0]).toEqual({
      address: `${PVC}.home`,
      kind: 'replace',
      severity: 'deny',
      message:
        `protected ${PVC}.home would be replaced (destroyed, then created empty) in a start, outside a workspace delete (replace_because_cannot_update; assumed: count = 1). ` +
        'Find the attribute forcing it (replace_paths) and fix the drift or add it to lifecycle.ignore_changes.',
    });
    expect(only(change('replace', { assumed: 'count = 1' }))[0].message).toContain('outside a workspace delete (assumed: count = 1). Find');
    expect(only(change('replace'))[0].message).toContain('outside a workspace delete. Find the attribute');
  });

  it('a protected type-rename says which side is migrated and how to fix it, in each direction', () => {
    const toV1 = change('type-rename', {
      address: 'kubernetes_persistent_volume_claim.home',
      type: 'kubernetes_persistent_volume_claim',
      configAddress: 'kubernetes_persistent_volume_claim.home',
      twinAddress: `${PVC}.home`,
      renameDirection: 'to-versioned',
    });
    expect(only(toV1)[0].message).toBe(
      `protected kubernetes_persistent_volume_claim.home would be destroyed and re-created empty as ${PVC}.home in a start, outside a workspace delete: ` +
        'the template uses the versioned type but this state still holds the deprecated one. Migrate the state first, ' +
        'or add removed { from = kubernetes_persistent_volume_claim.home lifecycle { destroy = false } } to the template.',
    );
    const toOld = change('type-rename', { twinAddress: 'kubernetes_persistent_volume_claim.home', renameDirection: 'to-deprecated' });
    expect(only(toOld, 'stop')[0].message).toBe(
      `protected ${PVC}.home would be destroyed and re-created empty as kubernetes_persistent_volume_claim.home in a stop, outside a workspace delete: ` +
        'the state is migrated but the build uses a template version with the deprecated type. Build with the migrated template version (pin template_version_id).',
    );
  });

  it('an unprotected type-rename or replace asks for approval, naming both sides and the sign it is', () => {
    expect(only(pod('type-rename', { twinAddress: 'kubernetes_pod.main[0]', renameDirection: 'to-deprecated' }))[0]).toEqual({
      address: 'kubernetes_pod_v1.main[0]',
      kind: 'type-rename',
      severity: 'approval',
      message:
        'kubernetes_pod_v1.main[0] -> kubernetes_pod.main[0]: the object is destroyed and re-created under the twin type, the sign of a migrated state built with a template version that still has the deprecated type',
    });
    expect(only(pod('type-rename', { twinAddress: 'kubernetes_pod_v2.main[0]', renameDirection: 'to-versioned' }))[0].message).toBe(
      'kubernetes_pod_v1.main[0] -> kubernetes_pod_v2.main[0]: the object is destroyed and re-created under the twin type, the sign of an unmigrated state built with a migrated template',
    );
    expect(only(pod('type-rename'))[0].message).toMatch(/^kubernetes_pod_v1\.main\[0\]: the object is destroyed/);
    expect(only(pod('replace', { reason: 'replace_because_tainted' }))[0]).toEqual({
      address: 'kubernetes_pod_v1.main[0]',
      kind: 'replace',
      severity: 'approval',
      message: 'kubernetes_pod_v1.main[0] would be replaced (destroyed, then created) (replace_because_tainted)',
    });
  });

  it.each<[Partial<ClassifiedChange>, Transition, string]>([
    [{ reason: 'delete_because_count_index' }, 'start', 'its count or for_each no longer includes this instance'],
    [{ reason: 'delete_because_each_key' }, 'start', 'its count or for_each no longer includes this instance'],
    [{ reason: 'delete_because_count_index' }, 'stop', 'normal in a stop, where counts follow start_count'],
    [{ reason: 'delete_because_no_resource_config' }, 'start', 'the template has no block for it'],
    [{ reason: 'delete_because_no_module' }, 'start', 'the template no longer calls its module'],
    [{ deposed: 'abc', reason: 'delete_because_no_module' }, 'start', 'an object left over from an earlier replacement'],
    [{}, 'start', 'not protected'],
    [{ reason: 'delete_because_no_module' }, 'delete', 'destroyed by the workspace delete'],
  ])('an unprotected delete (%o in a %s) is only information, saying why: %s', (more, transition, why) => {
    const reasons = only(pod('delete', more), transition);
    const suffix = more.reason ? ` (${more.reason})` : '';
    expect(reasons).toEqual([{ address: 'kubernetes_pod_v1.main[0]', kind: 'delete', severity: 'info', message: `kubernetes_pod_v1.main[0] is deleted${suffix}: ${why}` }]);
  });

  it('a forget is information: a protected one is the removed guard at work', () => {
    expect(only(change('forget'))).toEqual([
      {
        address: `${PVC}.home`,
        kind: 'forget',
        severity: 'info',
        message: `protected ${PVC}.home is dropped from state and left in the cluster: a removed { lifecycle { destroy = false } } guard at work`,
      },
    ]);
    expect(only(pod('forget'))[0].message).toBe('kubernetes_pod_v1.main[0] is dropped from state and left in the cluster');
  });

  it('a data source says nothing, even when deleted; creates and no-ops say nothing', () => {
    expect(only(change('delete', { mode: 'data', type: 'kubernetes_resources', address: 'data.kubernetes_resources.x', configAddress: 'data.kubernetes_resources.x' }))).toEqual([]);
    expect(only(pod('create'))).toEqual([]);
    expect(only(pod('no-op'))).toEqual([]);
    expect(only(pod('update'))).toEqual([]);
  });

  it('a summary lists at most three addresses and counts the rest', () => {
    const pvcs = ['a', 'b', 'c', 'd', 'e'].map((n) => change('delete', { address: `${PVC}.${n}`, configAddress: `${PVC}.${n}` }));
    expect(planGuardVerdict(pvcs, { transition: 'start' }).summary).toBe(
      `DENY: this start would destroy 5 protected resource(s): ${PVC}.a, ${PVC}.b, ${PVC}.c and 2 more. Do not apply it; see each reason for the fix.`,
    );
    expect(planGuardVerdict(pvcs.slice(0, 3), { transition: 'start' }).summary).toBe(
      `DENY: this start would destroy 3 protected resource(s): ${PVC}.a, ${PVC}.b, ${PVC}.c. Do not apply it; see each reason for the fix.`,
    );
    // Only the changes that ask for approval are counted, not the information beside them.
    expect(planGuardVerdict([pod('replace'), pod('delete', { address: 'kubernetes_pod_v1.other[0]' })], { transition: 'start' }).summary).toMatch(
      /^NEEDS APPROVAL: this start destroys and re-creates 1 unprotected resource\(s\): kubernetes_pod_v1\.main\[0\]\. /,
    );
    expect(planGuardVerdict([pod('replace')], { transition: 'stop' }).summary).toBe(
      'NEEDS APPROVAL: this stop destroys and re-creates 1 unprotected resource(s): kubernetes_pod_v1.main[0]. Approve if expected, else fix the state or the template version.',
    );
    expect(planGuardVerdict([pod('create'), pod('create'), pod('no-op'), pod('delete')], { transition: 'start' }).summary).toBe(
      'ALLOW: this start destroys no protected resource (2 create, 1 delete).',
    );
    expect(planGuardVerdict([pod('no-op')], { transition: 'start' }).summary).toBe('ALLOW: this start destroys no protected resource (no changes).');
  });

  it('a listed address protects under either twin name; without the kinds rule a PVC is only protected when listed', () => {
    const deployment = pod('delete', { address: 'kubernetes_deployment.main[0]', type: 'kubernetes_deployment', configAddress: 'kubernetes_deployment.main' });
    expect(planGuardVerdict([deployment], { transition: 'start', protectedAddresses: ['kubernetes_deployment_v1.main'] }).verdict).toBe('deny');
    expect(planGuardVerdict([change('delete')], { transition: 'start', protectPersistentKinds: false }).verdict).toBe('allow');
    expect(planGuardVerdict([change('delete')], { transition: 'start', protectPersistentKinds: false, protectedAddresses: [`${PVC}.home`] }).verdict).toBe('deny');
    // An address the guard cannot read is protected: it fails closed.
    expect(planGuardVerdict([pod('delete', { configAddress: 'not an address' })], { transition: 'start' }).verdict).toBe('deny');
    expect(planGuardVerdict([change('delete')], { transition: 'delete' }).verdict).toBe('allow');
  });
});
