import { describeMissingPermissions, NEEDED_PERMISSIONS, permissionChecks } from '../../src/domain/token-permissions';

const all = (value: boolean) => Object.fromEntries(Object.keys(NEEDED_PERMISSIONS).map((k) => [k, value]));
const scope = { template: 'k8s-dev', organization: 'coder' };

describe('what the token must be allowed to do, and the refusal when it is not', () => {
  it('asks about the template, its state, and starting and stopping the workspaces of the organization (or of one workspace)', () => {
    const org = permissionChecks({ organizationId: 'org-1', templateId: 'tpl-1' });
    expect(org['template.update']).toEqual({ object: { resource_type: 'template', resource_id: 'tpl-1', organization_id: 'org-1' }, action: 'update' });
    expect(org['workspace.start']).toEqual({ object: { resource_type: 'workspace', organization_id: 'org-1' }, action: 'start' });
    const one = permissionChecks({ organizationId: 'org-1', templateId: 'tpl-1', workspace: { id: 'ws-1', ownerId: 'u-1' } });
    expect(one['workspace.stop']).toEqual({ object: { resource_type: 'workspace', organization_id: 'org-1', resource_id: 'ws-1', owner_id: 'u-1' }, action: 'stop' });
  });

  it("a dormant workspace is not asked for start (nobody may start one; it is migrated stopped), and Coder's no to start is then no refusal", () => {
    const dormant = { organizationId: 'org-1', templateId: 'tpl-1', workspace: { id: 'ws-1', ownerId: 'u-1', dormant: true } };
    const checks = permissionChecks(dormant);
    expect(Object.keys(checks).sort()).toEqual(Object.keys(NEEDED_PERMISSIONS).filter((n) => n !== 'workspace.start').sort());
    expect(describeMissingPermissions({ ...all(true), 'workspace.start': false }, { ...scope, workspace: dormant.workspace })).toBeUndefined();
    expect(describeMissingPermissions({ ...all(true), 'workspace.stop': false }, { ...scope, workspace: dormant.workspace })).toContain("stop the template's workspaces");
    // Active again: start is asked, and a no is a refusal.
    const active = { ...dormant.workspace, dormant: false };
    expect(Object.keys(permissionChecks({ ...dormant, workspace: active }))).toContain('workspace.start');
    expect(describeMissingPermissions({ ...all(true), 'workspace.start': false }, { ...scope, workspace: active })).toContain("start the template's workspaces");
  });

  it('says nothing when Coder allows everything', () => {
    expect(describeMissingPermissions(all(true), scope)).toBeUndefined();
  });

  it("a Template Admin's answer: names start and stop, says why, and who can", () => {
    const answer = { ...all(true), 'workspace.start': false, 'workspace.stop': false };
    expect(describeMissingPermissions(answer, scope)).toBe(
      "the worker's token (CODER_SESSION_TOKEN) may not start the template's workspaces; stop the template's workspaces (Coder's /authcheck answered no). " +
        "Coder's Template Admin role cannot start or stop other users' workspaces. Use the token of an Owner, or of an Organization Admin of coder, for template k8s-dev",
    );
  });

  it('a member (or a check Coder left out) is missing everything, each named', () => {
    const message = describeMissingPermissions({ 'workspace.read': true }, scope) ?? '';
    for (const [name, p] of Object.entries(NEEDED_PERMISSIONS)) {
      if (name === 'workspace.read') expect(message).not.toContain(p.what);
      else expect(message).toContain(p.what);
    }
    expect(message).not.toMatch(/Template Admin/);
    expect(message).toMatch(/Owner, or of an Organization Admin of coder/);
  });
});
