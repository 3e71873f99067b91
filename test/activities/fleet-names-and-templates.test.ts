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
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
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
    expect(all).toMatchObject({ unknown: [], templates: [expect.objectContaining({ name })] });
  });

  it('promotes a version once: promoting the active version again changes nothing', async () => {
    const v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
    const input = { subject: 'template coder/k8s-dev', templateId: sim.template.id, versionId: v1 };
    await expect(acts().promoteTemplateVersion(input)).resolves.toEqual({ promoted: true });
    expect((await new CoderClient({ url: sim.url, token: sim.token }).template(sim.template.id)).active_version_id).toBe(v1);
    await expect(acts().promoteTemplateVersion(input)).resolves.toEqual({ promoted: false });
  });
});
