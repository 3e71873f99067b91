import { EXIT } from '../../src/cli/io';
import { organizationExitCode } from '../../src/cli/commands/organization-run';
import type { OrganizationResult, OrganizationTemplateRow } from '../../src/contracts/migrate-organization';

const summary = { migrated: 3, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 3, prebuilt: 0 };
const row = (template: string, state: OrganizationTemplateRow['state'], note?: string): OrganizationTemplateRow => ({ template, state, deprecatedTypes: ['kubernetes_deployment'], ...(note ? { note } : {}) });

/**
 * Hazard drive: an organization run whose second template's fleet was refused before any change (its
 * migrated version was no longer active: rolled back while the shared canary gate waited) ended
 * `done`, and `fleet start --org … --all-templates --wait` exited 0 with that template's workspaces
 * never migrated, because no workspace counted as failed.
 */
describe('organizationExitCode: how fleet start --org … --wait and fleet status wsmigrate-org/… --wait exit', () => {
  it('every template done, every workspace migrated: 0', () => {
    expect(organizationExitCode({ phase: 'done', summary, templates: [row('k8s-dev', 'done'), row('team-tools', 'nothing-to-do')] })).toBe(EXIT.ok);
  });

  it("a template whose fleet failed (refused before any change): 3, though no workspace counts as failed", () => {
    const r: Pick<OrganizationResult, 'phase' | 'summary' | 'templates'> = { phase: 'done', summary, templates: [row('k8s-dev', 'done'), row('k8s-gpu', 'failed', 'fleet of template coder/k8s-gpu refused before any change: …')] };
    expect(organizationExitCode(r)).toBe(EXIT.denied);
  });

  it('a workspace not migrated, or the run cancelled: 3, as before', () => {
    expect(organizationExitCode({ phase: 'done', summary: { ...summary, needsAttention: 1 }, templates: [row('k8s-dev', 'done')] })).toBe(EXIT.denied);
    expect(organizationExitCode({ phase: 'cancelled', summary, templates: [row('k8s-dev', 'cancelled')] })).toBe(EXIT.denied);
  });
});
