import { makeArchiveTemplateVersions, makePlanVersionArchive } from '../../src/activities/archive-versions';
import type { ActivityDeps } from '../../src/activities/ports';
import { CoderClient } from '../../src/adapters/coder';
import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { pushTemplateVersion, startBuild } from '../sim/helpers';

/**
 * The fleet's last step: which old versions it offers to archive at the `fleet-archive` gate, and
 * which it keeps because a workspace's latest build still uses one. A version kept "in use" keeps
 * require_active_version on (fleet-archive.ts): counted wrong, the lock would be given back while a
 * member can still build a migrated workspace on a version with the deprecated types.
 */
describe('archiving the old versions after a fleet', () => {
  let sim: CoderSimulator;
  /** Version ids by role: `old` (the seeded one) is under two workspaces, `moved` and `deleting` under one each, the rest under none. */
  const v = {} as Record<'old' | 'active' | 'target' | 'unused' | 'archived' | 'deleting' | 'moved', string>;
  const admin = () => new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
  const depsWith = (coder: ActivityDeps['coder']) => ({ coder, blobs: undefined, notifier: { notify: async () => undefined } }) as unknown as ActivityDeps;
  const plan = () => makePlanVersionArchive(depsWith(admin()))({ organization: 'coder', template: sim.template.name, targetVersionId: v.target });
  const archive = (versionIds: string[], coder: ActivityDeps['coder'] = admin()) => makeArchiveTemplateVersions(depsWith(coder))({ template: sim.template.name, versionIds });
  const archived = async (id: string) => (await admin().templateVersion(id)).archived;
  /** The plan lists versions in Coder's order; these tests compare sets. */
  const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 5, buildLatencyMs: 5 });
    v.old = sim.template.originalVersionId;
    for (const name of ['target', 'unused', 'archived', 'deleting', 'moved', 'active'] as const) {
      const pushed = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: `v-${name}`, promote: name === 'active' });
      expect(pushed.job.status).toBe('succeeded');
      v[name] = pushed.id;
    }
    await admin().archiveTemplateVersion(v.archived);
    const [, , onDeleting, onMoved] = sim.workspaces();
    expect((await startBuild(sim, onDeleting.id, { transition: 'start', template_version_id: v.deleting })).job.status).toBe('succeeded');
    expect((await startBuild(sim, onMoved.id, { transition: 'start', template_version_id: v.moved })).job.status).toBe('succeeded');
    // A delete that failed: the workspace is still listed, its latest build a delete on `deleting`,
    // which Coder does not count as using a version (its ArchiveUnusedTemplateVersions query).
    sim.setFaults({ failBuilds: { workspaceId: onDeleting.id, transition: 'delete', times: 1, message: 'finalizer stuck' } });
    try {
      const del = await startBuild(sim, onDeleting.id, { transition: 'delete' });
      expect(del).toMatchObject({ transition: 'delete', template_version_id: v.deleting, job: { status: 'failed' } });
    } finally {
      sim.setFaults(undefined);
    }
    // The fifth workspace is deleted for good: gone from the list, so it holds nothing.
    const gone = sim.workspaces()[4];
    expect((await startBuild(sim, gone.id, { transition: 'delete' })).job.status).toBe('succeeded');
  });
  afterAll(async () => sim?.close());

  it('offers the versions no workspace builds on; keeps, with how many, those a latest build uses; never the target, the active or an archived one', async () => {
    const p = await plan();
    expect(p.templateId).toBe(sim.template.id);
    expect(byId(p.inUse)).toEqual(
      byId([
        { id: v.old, name: expect.any(String), workspaces: 2 },
        { id: v.moved, name: 'v-moved', workspaces: 1 },
      ]),
    );
    expect(byId(p.versions)).toEqual(
      byId([
        { id: v.unused, name: 'v-unused' },
        { id: v.deleting, name: 'v-deleting' },
      ]),
    );
  });

  it('archives the approved unused versions in Coder; one a workspace moved onto since the plan is kept, not archived', async () => {
    const p = await plan();
    expect(p.versions.map((x) => x.id)).toContain(v.unused);
    // Between the plan (shown at the gate) and the approval, a member builds on the unused version.
    const onUnused = sim.workspaces()[0];
    expect((await startBuild(sim, onUnused.id, { transition: 'start', template_version_id: v.unused })).job.status).toBe('succeeded');

    const done = await archive([v.unused, v.deleting]);
    expect(done).toEqual({ archived: [v.deleting], keptInUse: [v.unused] });
    expect(await archived(v.deleting)).toBe(true);
    expect(await archived(v.unused)).toBe(false);
    // The plan made now (another batch's gate) reports it in use, and the old version with the one workspace left on it.
    expect(byId((await plan()).inUse)).toEqual(
      byId([
        { id: v.old, name: expect.any(String), workspaces: 1 },
        { id: v.unused, name: 'v-unused', workspaces: 1 },
        { id: v.moved, name: 'v-moved', workspaces: 1 },
      ]),
    );
  });

  it('a version archived by someone else since the plan counts as archived, without asking Coder to archive it again (which Coder refuses)', async () => {
    const theirs = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'v-theirs' })).id;
    await admin().archiveTemplateVersion(theirs);
    expect(await archive([theirs])).toEqual({ archived: [theirs], keptInUse: [] });
    expect(await archived(theirs)).toBe(true);
  });

  it("Coder's refusals name the step and the template: an unknown template to plan, a token that may not archive, an unknown version", async () => {
    await expect(makePlanVersionArchive(depsWith(admin()))({ organization: 'coder', template: 'no-such-template', targetVersionId: v.target })).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      nonRetryable: true,
      message: expect.stringMatching(/^archive plan failed for template coder\/no-such-template: /),
    });
    const fresh = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'v-fresh' })).id;
    const member = new CoderClient({ url: sim.url, token: sim.memberToken, retry: { maxAttempts: 1 } });
    await expect(archive([fresh], member)).rejects.toMatchObject({ nonRetryable: true, message: expect.stringMatching(new RegExp(`^archive failed for template ${sim.template.name}: `)) });
    expect(await archived(fresh)).toBe(false);
    // A version id Coder does not know (read before the archive) is refused the same way.
    await expect(archive(['00000000-0000-4000-8000-000000000001'])).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      message: expect.stringMatching(new RegExp(`^archive failed for template ${sim.template.name}: `)),
    });
  });

  it('a Coder that fails to list the workspaces (500 after the retries) fails the plan and the archive, retryably, naming the step: nothing is archived on a guess', async () => {
    const fresh = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'v-unlisted' })).id;
    sim.setFaults({ error500Rate: 1, only: ['/api/v2/workspaces'] });
    try {
      await expect(plan()).rejects.toMatchObject({ nonRetryable: false, message: expect.stringMatching(new RegExp(`^archive plan failed for template ${sim.template.name}: `)) });
      await expect(archive([fresh])).rejects.toMatchObject({ nonRetryable: false, message: expect.stringMatching(new RegExp(`^archive plan failed for template ${sim.template.name}: `)) });
      // The template's versions unreadable as well.
      sim.setFaults({ error500Rate: 1, only: [`/api/v2/templates/${sim.template.id}/versions`] });
      await expect(plan()).rejects.toMatchObject({ nonRetryable: false, message: expect.stringMatching(new RegExp(`^archive plan failed for template coder/${sim.template.name}: `)) });
    } finally {
      sim.setFaults(undefined);
    }
    expect(await archived(fresh)).toBe(false);
  });
});
