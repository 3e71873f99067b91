import { makeCheckFleetNames } from '../../src/activities/check-fleet-names';
import { makeListOrganizationTemplates } from '../../src/activities/list-organization-templates';
import { makePromoteTemplateVersion } from '../../src/activities/promote-template-version';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, pushTemplateVersion } from '../sim/helpers';

/**
 * The fleet's and the organization's reads before anything changes: a typo in --owner or --exclude
 * is refused (it would migrate nothing, or the very workspace meant to be kept out), templates are
 * matched by name whatever the case, and a promote of the active version changes nothing.
 */
describe('fleet names, organization templates and promote', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5, moreTemplates: [{ name: 'team-tools', workspaces: 1, versioned: true }] });
  });
  afterAll(() => sim.close());
  const acts = () =>
    stepsOf(
      { coder: new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 1, maxDelayMs: 2 } }), blobs: createFileBlobStore({ dir: '/nonexistent-never-written' }), notifier: { notify: async () => undefined } },
      { checkFleetNames: makeCheckFleetNames, listOrganizationTemplates: makeListOrganizationTemplates, promoteTemplateVersion: makePromoteTemplateVersion },
    );

  it('names Coder knows pass; an unknown owner or excluded workspace is refused, each named with its flag and what to do', async () => {
    const ws = sim.workspaces()[0];
    await expect(acts().checkFleetNames({ organization: 'coder', subject: 'template coder/k8s-dev', filters: { owners: [ws.owner], exclude: [`${ws.owner}/${ws.name}`] } })).resolves.toBeUndefined();
    await expect(acts().checkFleetNames({ organization: 'coder', subject: 'template coder/k8s-dev', filters: { owners: [ws.owner, 'nobdy'], exclude: [`${ws.owner}/${ws.name}x`] } })).rejects.toMatchObject({
      type: FailureType.unknownName,
      nonRetryable: true,
      message: `fleet of template coder/k8s-dev refused before any change: Coder has no user 'nobdy' (--owner), no workspace '${ws.owner}/${ws.name}x' (--exclude); check the spelling (usernames, not display names; 'wsmigrate scan --template <name>' lists each workspace as owner/name), then start again`,
    });
  });

  it('lists the named templates whatever their case, with what the active version still declares, and the names it does not have', async () => {
    const name = sim.template.name;
    const r = await acts().listOrganizationTemplates({ organization: sim.orgId, templates: [name.toUpperCase(), 'no-such-template'] });
    expect(r.unknown).toEqual(['no-such-template']);
    expect(r.templates).toEqual([expect.objectContaining({ name, activeVersionId: sim.template.originalVersionId, deprecatedTypes: expect.arrayContaining(['kubernetes_persistent_volume_claim']) })]);
    const all = await acts().listOrganizationTemplates({ organization: sim.orgId });
    expect(all).toMatchObject({ unknown: [] });
    expect(all.templates.map((t) => [t.name, t.deprecatedTypes.length > 0])).toEqual([
      [name, true],
      ['team-tools', false],
    ]);
    // A named template the organization has is never reported unknown because another exists too.
    expect(await acts().listOrganizationTemplates({ organization: sim.orgId, templates: ['Team-Tools'] })).toMatchObject({ unknown: [], templates: [expect.objectContaining({ name: 'team-tools', deprecatedTypes: [] })] });
  });

  it("names the step and the organization, or the template, when Coder cannot answer", async () => {
    await expect(acts().listOrganizationTemplates({ organization: 'no-such-org' })).rejects.toThrow(/^list templates failed for organization no-such-org: /);
    const other = sim.templates().find((t) => t.name === 'team-tools')!;
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/templateversions/${other.activeVersionId}`] });
    try {
      await expect(acts().listOrganizationTemplates({ organization: sim.orgId, templates: ['team-tools'] })).rejects.toThrow(/^read template source failed for template [^ ]+\/team-tools: /);
    } finally {
      sim.setFaults(undefined);
    }
  });

  it('promotes a version once: promoting the active version again changes nothing', async () => {
    const v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
    const input = { subject: 'template coder/k8s-dev', templateId: sim.template.id, versionId: v1 };
    await expect(acts().promoteTemplateVersion(input)).resolves.toEqual({ promoted: true });
    expect((await new CoderClient({ url: sim.url, token: sim.token }).template(sim.template.id)).active_version_id).toBe(v1);
    await expect(acts().promoteTemplateVersion(input)).resolves.toEqual({ promoted: false });
    // Coder's refusals name the step: a template it does not know, a version it will not promote.
    await expect(acts().promoteTemplateVersion({ ...input, templateId: '00000000-0000-4000-8000-000000000009' })).rejects.toThrow(/^promote failed for template coder\/k8s-dev: /);
    const other = sim.templates().find((t) => t.name === 'team-tools')!.activeVersionId;
    await expect(acts().promoteTemplateVersion({ ...input, versionId: other })).rejects.toThrow(/^promote failed for template coder\/k8s-dev: .*doesn't belong to the specified template/);
  });
});
