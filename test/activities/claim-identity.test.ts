import { makePreflightWorkspace } from '../../src/activities/preflight-workspace';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';

const migrated = (source: string) => rewriteTemplate([{ path: 'main.tf', content: source }], {}).files[0]!.content;

/**
 * A hand-pushed target version that names the home claim otherwise than the state holds: the
 * migration's build would replace the claim (a new name or namespace forces a new resource), and
 * the plan guard, which compares addresses and types, sees the same address. Refused in preflight.
 */
describe("preflightWorkspace: a target version that would rename or move a workspace's claim", () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 99, buildLatencyMs: 5 });
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterAll(async () => sim.close());

  async function push(source: string): Promise<string> {
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: source }]));
    const version = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash });
    expect((await coder.waitForTemplateVersion(version.id)).job.status).toBe('succeeded');
    return version.id;
  }
  const ws = () => sim.workspaces()[0]!;
  const preflight = (targetVersionId: string) =>
    makePreflightWorkspace({ coder, blobs: undefined as never, notifier: { notify: async () => undefined } }, cachedTemplateSourceLoader(coder))({
      owner: ws().owner,
      workspace: ws().name,
      template: sim.template.name,
      targetVersionId,
      strategy: 'rename',
    });

  test('a claim renamed by the version is refused, naming both names and what the build would do; nothing is built', async () => {
    const renamed = await push(migrated(K8S_TEMPLATE_MAIN_TF.replace('-home"', '-homes"')));
    expect(K8S_TEMPLATE_MAIN_TF.replace('-home"', '-homes"')).not.toBe(K8S_TEMPLATE_MAIN_TF);
    const before = (await coder.workspace(ws().id)).latest_build.build_number;
    const err = await preflight(renamed).then(
      () => undefined,
      (e: unknown) => e as { type?: string; message: string },
    );
    expect(err).toMatchObject({ type: FailureType.refused });
    expect(err?.message).toContain(`would give kubernetes_persistent_volume_claim_v1.home the name 'coder-${ws().id}-homes' where build #`);
    expect(err?.message).toContain(`has 'coder-${ws().id}-home'`);
    expect(err?.message).toContain("the migration's build would replace it and its data with it");
    expect((await coder.workspace(ws().id)).latest_build.build_number).toBe(before);
  });

  test('the migrated version passes; so does one whose name this cannot compute before the plan', async () => {
    await expect(preflight(await push(migrated(K8S_TEMPLATE_MAIN_TF)))).resolves.toMatchObject({ renameable: 2 });
    const computed = K8S_TEMPLATE_MAIN_TF.replace(/name\s*=\s*"coder-\$\{data\.coder_workspace\.me\.id\}-home"/, 'name = replace("coder-${data.coder_workspace.me.id}-home", "x", "x")');
    expect(computed).not.toBe(K8S_TEMPLATE_MAIN_TF);
    await expect(preflight(await push(migrated(computed)))).resolves.toMatchObject({ renameable: 2 });
  });
});
