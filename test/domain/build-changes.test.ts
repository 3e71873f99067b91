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

  describe('a delete is a type-rename delete only beside the create of its very twin', () => {
    const kindsOf = (lines: string[]) => detectBuildChanges(lines).changes.map((c) => [c.address, c.kind, c.twinAddress]);
    const gone = '  # kubernetes_persistent_volume_claim.home will be destroyed';
    it('not when the twin is destroyed too, or destroyed and created (its own replacement)', () => {
      expect(kindsOf([gone, '  # kubernetes_persistent_volume_claim_v1.home will be destroyed'])).toEqual([
        // localeCompare order: '_' sorts before '.'.
        ['kubernetes_persistent_volume_claim_v1.home', 'destroy', undefined],
        ['kubernetes_persistent_volume_claim.home', 'destroy', undefined],
      ]);
      expect(kindsOf([gone, 'kubernetes_persistent_volume_claim_v1.home: Destroying...', 'kubernetes_persistent_volume_claim_v1.home: Creating...'])).toEqual([
        ['kubernetes_persistent_volume_claim_v1.home', 'replace', undefined],
        ['kubernetes_persistent_volume_claim.home', 'destroy', undefined],
      ]);
    });
    it('not beside a create of another name, another module, or a type that is no twin', () => {
      expect(kindsOf([gone, '  # kubernetes_persistent_volume_claim_v1.data will be created'])).toEqual([['kubernetes_persistent_volume_claim.home', 'destroy', undefined]]);
      expect(kindsOf([gone, '  # module.x.kubernetes_persistent_volume_claim_v1.home will be created'])).toEqual([['kubernetes_persistent_volume_claim.home', 'destroy', undefined]]);
      expect(kindsOf(['  # kubernetes_deployment.main will be destroyed', '  # kubernetes_service_v1.main will be created'])).toEqual([['kubernetes_deployment.main', 'destroy', undefined]]);
    });
  });

  it('ignores data sources, unreadable addresses and unreadable protect annotations; lists changes by address', () => {
    const r = detectBuildChanges(
      [
        'data.kubernetes_secret.s: Destroying...',
        '  # ??? must be replaced',
        '  # kubernetes_service_v1.web will be destroyed',
        '  # kubernetes_config_map_v1.cfg will be destroyed',
        '  # kubernetes_secret_v1.api must be replaced',
      ],
      ['not an address', 'kubernetes_secret.api'],
    );
    expect(r.changes.map((c) => [c.address, c.kind, c.protected])).toEqual([
      ['kubernetes_config_map_v1.cfg', 'destroy', false],
      ['kubernetes_secret_v1.api', 'replace', true],
      ['kubernetes_service_v1.web', 'destroy', false],
    ]);
    expect(r.protectedDestroyed).toEqual(['kubernetes_secret_v1.api']);
    // One replacement among plain destroys is worth a notification.
    expect(worthReporting(r)).toBe(true);
  });
});
