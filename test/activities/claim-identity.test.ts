import { makePreflightWorkspace } from '../../src/activities/preflight-workspace';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';
import { FailureType } from '../../src/domain/failure-types';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { useHandPushedVersions } from './fixtures/hand-pushed';

const migrated = (source: string) => rewriteTemplate([{ path: 'main.tf', content: source }], {}).files[0]!.content;

/**
 * A hand-pushed target version that names the home claim otherwise than the state holds: the
 * migration's build would replace the claim (a new name or namespace forces a new resource), and
 * the plan guard, which compares addresses and types, sees the same address. Refused in preflight.
 */
describe("preflightWorkspace: a target version that would rename or move a workspace's claim", () => {
  const world = useHandPushedVersions({ seed: 99 });
  const push = (source: string) => world.push(source);
  const preflight = (id: string) => world.preflight(id);
  const ws = () => world.sim.workspaces()[0]!;

  test('a claim renamed by the version is refused, naming both names and what the build would do; nothing is built', async () => {
    const renamed = await push(migrated(K8S_TEMPLATE_MAIN_TF.replace('-home"', '-homes"')));
    expect(K8S_TEMPLATE_MAIN_TF.replace('-home"', '-homes"')).not.toBe(K8S_TEMPLATE_MAIN_TF);
    const before = (await world.coder.workspace(ws().id)).latest_build.build_number;
    const err = await preflight(renamed).then(
      () => undefined,
      (e: unknown) => e as { type?: string; message: string },
    );
    expect(err).toMatchObject({ type: FailureType.refused });
    expect(err?.message).toContain(`would give kubernetes_persistent_volume_claim_v1.home the name 'coder-${ws().id}-homes' where build #`);
    expect(err?.message).toContain(`has 'coder-${ws().id}-home'`);
    expect(err?.message).toContain("the migration's build would replace it and its data with it");
    expect((await world.coder.workspace(ws().id)).latest_build.build_number).toBe(before);
  });

  test('the migrated version passes; so does one whose name this cannot compute before the plan', async () => {
    await expect(preflight(await push(migrated(K8S_TEMPLATE_MAIN_TF)))).resolves.toMatchObject({ renameable: 2 });
    const computed = K8S_TEMPLATE_MAIN_TF.replace(/name\s*=\s*"coder-\$\{data\.coder_workspace\.me\.id\}-home"/, 'name = replace("coder-${data.coder_workspace.me.id}-home", "x", "x")');
    expect(computed).not.toBe(K8S_TEMPLATE_MAIN_TF);
    await expect(preflight(await push(migrated(computed)))).resolves.toMatchObject({ renameable: 2 });
  });
  describe('a claim name computed from a sensitive variable (its value given to the worker, never shown)', () => {
    const secret = 's3cr3t-suffix-4711';
    const sensitiveName = migrated(
      K8S_TEMPLATE_MAIN_TF.replace('-home"', '-${var.home_suffix}"') + '\nvariable "home_suffix" {\n  type      = string\n  sensitive = true\n  default   = "home"\n}\n',
    );
    const preflightGiven = (targetVersionId: string, values: Record<string, string>) =>
      makePreflightWorkspace(
        {
          coder: world.coder,
          blobs: undefined as never,
          notifier: { notify: async () => undefined },
          templateVariables: { valuesFor: async () => values, whereFor: () => 'key "coder/k8s-dev" of variables.json' },
        },
        cachedTemplateSourceLoader(world.coder),
      )({ owner: ws().owner, workspace: ws().name, template: world.sim.template.name, targetVersionId, strategy: 'rename' });

    test('a value that renames the claim is refused without the value: "another name (computed from a sensitive variable)"', async () => {
      const version = await push(sensitiveName);
      const err = await preflightGiven(version, { home_suffix: secret }).then(
        () => undefined,
        (e: unknown) => e as { type?: string; message: string },
      );
      expect(err).toMatchObject({ type: FailureType.refused });
      expect(err?.message).toContain('give kubernetes_persistent_volume_claim_v1.home another name (computed from a sensitive variable) than build #');
      expect(err?.message).not.toContain(secret);
      expect(err?.message).not.toContain('s3cr3t');
      expect(err?.message).toContain("Check the version's variable values (a sensitive one from WSMIGRATE_TEMPLATE_VARIABLES must be the one the template was pushed with) and the workspace's name, then run again");
    });

    test('without values given to the worker, a name computed from a sensitive variable is unknown before the plan: not compared, passes', async () => {
      await expect(preflight(await push(sensitiveName))).resolves.toMatchObject({ renameable: 2 });
    });

    test('a claim renamed by a literal, on a version that also declares a sensitive variable nobody gave the worker: refused naming both names, not a crash', async () => {
      const renamedWithSecret = migrated(
        K8S_TEMPLATE_MAIN_TF.replace('-home"', '-homes"') + '\nvariable "api_key" {\n  type      = string\n  sensitive = true\n  default   = "k"\n}\n',
      );
      const err = await preflight(await push(renamedWithSecret)).then(
        () => undefined,
        (e: unknown) => e as { type?: string; message: string },
      );
      // A TypeError here would be retried by Temporal as a transient failure, forever, instead of refused.
      expect(err).toMatchObject({ type: FailureType.refused });
      expect(err?.message).toContain(`would give kubernetes_persistent_volume_claim_v1.home the name 'coder-${ws().id}-homes' where build #`);
    });

    test('the value the template was pushed with passes', async () => {
      await expect(preflightGiven(await push(sensitiveName), { home_suffix: 'home' })).resolves.toMatchObject({ renameable: 2 });
    });
  });
});
