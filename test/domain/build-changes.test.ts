import { detectBuildChanges, worthReporting } from '../../src/domain/build-changes';

describe('detectBuildChanges (seed 003: replacements seen in a build)', () => {
  it('finds a replacement from the plan ("must be replaced") and marks a volume protected', () => {
    const r = detectBuildChanges([
      'Terraform will perform the following actions:',
      '  # kubernetes_persistent_volume_claim_v1.home must be replaced',
      '-/+ resource "kubernetes_persistent_volume_claim_v1" "home" {',
      '      ~ metadata { # forces replacement',
      '  # kubernetes_deployment_v1.main[0] will be created',
      'Plan: 2 to add, 0 to change, 1 to destroy.',
    ]);
    expect(r.changes).toEqual([{ kind: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', resourceType: 'kubernetes_persistent_volume_claim_v1', protected: true }]);
    expect(r.protectedDestroyed).toEqual(['kubernetes_persistent_volume_claim_v1.home']);
  });

  it('pairs a delete with the create of its twin type as a type-rename delete (the runbook hazard), either direction', () => {
    const r = detectBuildChanges([
      '  # kubernetes_persistent_volume_claim.home will be destroyed',
      '  # kubernetes_persistent_volume_claim_v1.home will be created',
      '  # module.ws.kubernetes_deployment_v1.main[0] will be destroyed',
      '  # module.ws.kubernetes_deployment.main[0] will be created',
    ]);
    expect(r.changes.map((c) => [c.kind, c.address, c.twinAddress, c.protected])).toEqual([
      ['type-rename-delete', 'kubernetes_persistent_volume_claim.home', 'kubernetes_persistent_volume_claim_v1.home', true],
      ['type-rename-delete', 'module.ws.kubernetes_deployment_v1.main[0]', 'module.ws.kubernetes_deployment.main[0]', false],
    ]);
  });

  it('reads apply lines too: Destroying + Creating of one address is a replacement, Destroying alone a destroy', () => {
    const r = detectBuildChanges([
      'kubernetes_deployment_v1.main[0]: Destroying... [id=coder/ws-1]',
      'kubernetes_deployment_v1.main[0]: Destruction complete after 1s',
      'kubernetes_service_v1.web: Destroying... [id=coder/web]',
      'kubernetes_service_v1.web: Creating...',
      'data.coder_workspace.me: Reading...',
    ]);
    expect(r.changes.map((c) => [c.kind, c.address])).toEqual([
      ['destroy', 'kubernetes_deployment_v1.main[0]'],
      ['replace', 'kubernetes_service_v1.web'],
    ]);
    expect(r.protectedDestroyed).toEqual([]);
  });

  it('honours # wsmigrate:protect addresses of the template, by either twin name', () => {
    const r = detectBuildChanges(['  # kubernetes_secret_v1.keys will be destroyed'], ['kubernetes_secret.keys']);
    expect(r.protectedDestroyed).toEqual(['kubernetes_secret_v1.keys']);
  });

  it('a plain stop (unprotected destroys only) is not worth a notification; a replacement is', () => {
    expect(worthReporting(detectBuildChanges(['  # kubernetes_deployment_v1.main[0] will be destroyed']))).toBe(false);
    expect(worthReporting(detectBuildChanges(['  # kubernetes_service_v1.web must be replaced']))).toBe(true);
    expect(detectBuildChanges(['No changes. Your infrastructure matches the configuration.']).changes).toEqual([]);
  });
});
