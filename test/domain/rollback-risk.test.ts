import { atRiskNote, migratedProtectedInState, migratedProtectedInVersion, rollbackHazards, versionShape } from '../../src/domain/rollback-risk';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';

const oldFiles = [{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }];
const oldShape = versionShape(oldFiles);
const v1Shape = versionShape(rewriteTemplate(oldFiles).files);
const inst = [{ attributes: { id: 'coder/home' } }];
const migratedState = [
  { mode: 'managed' as const, type: 'kubernetes_persistent_volume_claim_v1', name: 'home', instances: inst },
  { mode: 'managed' as const, type: 'kubernetes_deployment_v1', name: 'main', instances: inst },
  { mode: 'managed' as const, type: 'coder_agent', name: 'main', instances: inst },
];
const held = migratedProtectedInState(migratedState);
const risk = (over: Partial<Parameters<typeof rollbackHazards>[0]> = {}) =>
  rollbackHazards({ workspaceVersionId: 'v1-version', activeVersionId: 'old-version', held, active: oldShape, ...over });

describe('the rollback risk: a migrated workspace and an active version that would destroy its volumes', () => {
  test('a _v1 state, another active version, and that version declares the old type: at risk, naming the PVC', () => {
    expect(held).toEqual(['kubernetes_persistent_volume_claim_v1.home']);
    expect(risk()).toEqual([
      {
        address: 'kubernetes_persistent_volume_claim_v1.home',
        why: 'the active version declares the old kubernetes_persistent_volume_claim.home: its build destroys kubernetes_persistent_volume_claim_v1.home and creates it anew, empty',
      },
    ]);
  });

  test('the workspace is on the active version: not at risk (its Update builds what it runs)', () => {
    expect(risk({ activeVersionId: 'v1-version' })).toEqual([]);
  });

  test('a state with no _v1 protected entry (an unmigrated workspace on the old version): not at risk', () => {
    const unmigrated = migratedProtectedInState([{ mode: 'managed', type: 'kubernetes_persistent_volume_claim', name: 'home', instances: inst }]);
    expect(unmigrated).toEqual([]);
    expect(risk({ held: unmigrated })).toEqual([]);
  });

  test('an active _v1 version, with or without guards: not at risk', () => {
    expect(risk({ active: v1Shape })).toEqual([]);
    expect(risk({ active: versionShape(rewriteTemplate(oldFiles, { zeroTouch: true }).files) })).toEqual([]);
  });

  test('an active version without the _v1 resource: at risk, unless a removed block keeps it', () => {
    const without = versionShape([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace(/resource "kubernetes_persistent_volume_claim" "home"/, 'resource "kubernetes_config_map" "home"') }]);
    expect(without.declared.has('kubernetes_persistent_volume_claim.home')).toBe(false);
    expect(risk({ active: without })).toEqual([{ address: 'kubernetes_persistent_volume_claim_v1.home', why: expect.stringMatching(/does not declare kubernetes_persistent_volume_claim_v1\.home .*destroys it$/) }]);
    const kept = versionShape([
      ...oldFiles,
      { path: 'keep.tf', content: 'removed {\n  from = kubernetes_persistent_volume_claim_v1.home\n  lifecycle {\n    destroy = false\n  }\n}\n' },
    ]);
    expect(risk({ active: kept })).toEqual([]);
  });

  test('a moved block from the _v1 address keeps it only when its target is declared', () => {
    const moved = (to: string) => versionShape([...oldFiles, { path: 'moves.tf', content: `moved {\n  from = kubernetes_persistent_volume_claim_v1.home\n  to   = ${to}\n}\n` }]);
    // Across types the kubernetes provider has no MoveResourceState: the plan fails, nothing is destroyed.
    expect(risk({ active: moved('kubernetes_persistent_volume_claim.home') })).toEqual([]);
    expect(risk({ active: moved('kubernetes_persistent_volume_claim.elsewhere') })).toHaveLength(1);
  });

  test('a deployment is not protected; an annotation on either type name makes it so', () => {
    expect(migratedProtectedInState(migratedState, ['kubernetes_deployment.main'])).toEqual(['kubernetes_deployment_v1.main', 'kubernetes_persistent_volume_claim_v1.home']);
    expect(migratedProtectedInState(migratedState, ['kubernetes_deployment_v1.main'])).toContain('kubernetes_deployment_v1.main');
  });

  test('a workspace whose state was not read: its migrated version says what it holds', () => {
    expect(migratedProtectedInVersion(v1Shape)).toEqual(['kubernetes_persistent_volume_claim_v1.home']);
    expect(migratedProtectedInVersion(oldShape)).toEqual([]);
  });
});

describe('the at-risk note', () => {
  const objects = risk();
  test("names the owner's Update, and the autostart only when Coder uses the active version for it and a schedule is set", () => {
    expect(atRiskNote(objects, { template: 't', activeVersion: 'old' }).firedBy).toEqual(["its owner's Update (the dashboard builds the active version)"]);
    expect(atRiskNote(objects, { template: 't', activeVersion: 'old', automaticUpdates: 'always' }).firedBy).toHaveLength(1);
    expect(atRiskNote(objects, { template: 't', activeVersion: 'old', automaticUpdates: 'always', autostartSchedule: 'CRON_TZ=UTC 30 9 * * 1-5' }).firedBy[1]).toBe(
      'its autostart (automatic updates "always"), schedule CRON_TZ=UTC 30 9 * * 1-5',
    );
    const required = atRiskNote(objects, { template: 't', activeVersion: 'old', requireActiveVersion: true, autostartSchedule: 'x', nextStartAt: '2026-12-08T09:30:00Z' }).firedBy;
    expect(required).toContain("its autostart (the template's require_active_version), next at 2026-12-08T09:30:00Z");
    expect(required).toContain("its owner's start (require_active_version starts members on the active version)");
  });

  test('says which version to promote and the command, and what to do if the rollback is wanted', () => {
    const note = atRiskNote(objects, { template: 'k8s-dev', activeVersion: 'old', migratedVersion: 'wsmigrate-v1' });
    expect(note.action).toMatch(/^promote the migrated version again: coder templates versions promote --template k8s-dev --template-version wsmigrate-v1, then run 'wsmigrate scan' again\. If the rollback to old is wanted, do not Update this workspace: .*ask before updating it$/);
    expect(atRiskNote(objects, { template: 'k8s-dev', activeVersion: 'old' }).action).toMatch(/--template-version <the version 'wsmigrate migrate template' pushed>/);
  });
});
