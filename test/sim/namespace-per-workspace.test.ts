import { startSimulator, type CoderSimulator } from '../../src/sim';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { api, fixtureSource, pushTemplateVersion, waitForBuild } from './helpers';

/**
 * A template that gives each workspace its own namespace and puts the home claim in it. Kubernetes
 * deletes everything in a deleted namespace, so the rewritten version must guard the namespace as
 * it guards the claim: a user's "Update" of a workspace whose state was not migrated yet must fail,
 * never delete the namespace (and the claim with it).
 */
describe('a namespace per workspace holding its claim', () => {
  let sim: CoderSimulator;
  const SOURCE = fixtureSource('template-namespace-per-workspace');

  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, seed: 77, templateFiles: [{ name: 'main.tf', content: SOURCE }] });
  });
  afterEach(async () => sim.close());

  const ws = () => sim.workspaces()[0] ?? (() => { throw new Error('no workspace'); })();
  const namespaceOf = (id: string) => sim.cluster.objects().find((o) => o.kind === 'Namespace' && o.name === `ws-${id}`);
  const claimOf = (id: string) => sim.cluster.pvc(`ws-${id}`, 'data');

  async function strayUpdate(files: { name: string; content: string }[]) {
    const version = await pushTemplateVersion(sim, files, { promote: true });
    expect(version.job.status).toBe('succeeded');
    const res = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws().id}/builds`, { json: { transition: 'start', template_version_id: version.id } });
    expect(res.status).toBe(201);
    return (await waitForBuild(sim, res.body.id)).build;
  }

  function rewritten(): { name: string; content: string }[] {
    const { files, report } = rewriteTemplate([{ path: 'main.tf', content: SOURCE }]);
    expect(report.guards.map((g) => g.from)).toEqual(['kubernetes_namespace.ws', 'kubernetes_persistent_volume_claim.data']);
    expect(report.protectedResources.map((p) => [p.address, p.why])).toEqual([
      ['kubernetes_persistent_volume_claim.data', 'persistent-kind'],
      ['kubernetes_namespace.ws', 'holds-protected'],
    ]);
    return files.map((f) => ({ name: f.path, content: f.content }));
  }

  test('the rewritten version on a workspace not migrated yet: the build fails, the namespace and the claim keep their uids', async () => {
    const id = ws().id;
    const [namespace, claim] = [namespaceOf(id), claimOf(id)];
    expect(namespace).toBeDefined();
    expect(claim).toBeDefined();

    const build = await strayUpdate(rewritten());

    expect(build.job.status).toBe('failed');
    expect(build.job.error).toMatch(/already exists/);
    expect(namespaceOf(id)?.uid).toBe(namespace?.uid);
    expect(claimOf(id)?.uid).toBe(claim?.uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });

  test('why: the same version guarding only the claim deletes the namespace, and the claim inside is lost', async () => {
    const id = ws().id;
    const claimOnly = rewritten().map((f) =>
      f.name === 'wsmigrate_guards.tf' ? { ...f, content: f.content.replace(/removed \{\s*from = kubernetes_namespace\.ws[\s\S]*?\n\}\n/, '') } : f,
    );
    expect(claimOnly.find((f) => f.name === 'wsmigrate_guards.tf')?.content).not.toContain('kubernetes_namespace.ws');

    await strayUpdate(claimOnly);

    expect(sim.cluster.pvcLosses().map((l) => [l.namespace, l.name])).toEqual([[`ws-${id}`, 'data']]);
  });
});
