import { versionParametersReader } from '../../src/activities/cached-reads';
import { FailureType } from '../../src/domain/failure-types';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { useHandPushedVersions } from './fixtures/hand-pushed';
import { SIZED_HOME_TEMPLATE_MAIN_TF } from '../sim/helpers';

const OLD = SIZED_HOME_TEMPLATE_MAIN_TF;
const migrated = (extra = '') => rewriteTemplate([{ path: 'main.tf', content: OLD + extra }], {}).files[0]!.content;

/**
 * A hand-pushed target version whose parameters the workspace's values do not satisfy: Coder refuses
 * the migration's build (400, coderd/wsbuilder/wsbuilder.go getParameters) only after the workspace
 * was stopped and backed up. Refused in preflight instead, before anything stops.
 */
describe('preflightWorkspace: a target version whose parameters would refuse the workspace\'s values', () => {
  const world = useHandPushedVersions({ seed: 98, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }] });
  const push = (source: string) => world.push(source);
  const preflight = (id: string) => world.preflight(id);
  const refusal = (targetVersionId: string) =>
    preflight(targetVersionId).then(
      () => undefined,
      (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string },
    );
  const buildParameterReads = () => world.sim.requestLog().filter((r) => /\/workspacebuilds\/[^/]+\/parameters$/.test(r.path)).length;
  const buildNumber = async () => (await world.coder.workspace(world.sim.workspaces()[0]!.id)).latest_build.build_number;

  test('a new required parameter is refused, naming it, saying why and what to do; nothing is built', async () => {
    const target = await push(migrated('data "coder_parameter" "quota" {\n  name = "quota"\n  type = "number"\n}\n'));
    const before = await buildNumber();
    const err = await refusal(target);
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err?.message).toContain("Coder would refuse a build of template version");
    expect(err?.message).toContain("'quota' is required and the last build has no value for it");
    expect(err?.message).toContain("Pass the version 'wsmigrate migrate template' pushed");
    expect(err?.message).not.toContain('coder update');
    expect(await buildNumber()).toBe(before);
  });

  test("options that leave out the workspace's value, or a maximum under it, are refused with the value", async () => {
    const options = await push(migrated().replace('  mutable = true\n', '  mutable = true\n  option {\n    name  = "Small"\n    value = "10"\n  }\n  option {\n    name  = "Large"\n    value = "50"\n  }\n'));
    expect((await refusal(options))?.message).toContain("'home_disk_size' is '20', not one of its options (10, 50)");
    const capped = await push(migrated().replace('  mutable = true\n', '  mutable = true\n  validation {\n    min = 1\n    max = 15\n  }\n'));
    expect((await refusal(capped))?.message).toContain("'home_disk_size' is 20, over its maximum 15");
  });

  test("the migrated version (the same parameters) passes without reading the workspace's values; a new parameter with a default passes after reading them", async () => {
    const same = await push(migrated());
    const reads = buildParameterReads();
    await expect(preflight(same)).resolves.toMatchObject({ renameable: 2, onTargetVersion: false });
    expect(buildParameterReads()).toBe(reads);
    const withDefault = await push(migrated('data "coder_parameter" "shell" {\n  name    = "shell"\n  default = "bash"\n}\n'));
    await expect(preflight(withDefault)).resolves.toMatchObject({ renameable: 2 });
    expect(buildParameterReads()).toBe(reads + 1);
  });

  test("a worker keeps a version's parameters once read; a read that failed is not kept", async () => {
    let calls = 0;
    const read = versionParametersReader({
      templateVersionRichParameters: async (id) => {
        calls += 1;
        if (id === 'importing') throw new Error("Job hasn't completed!");
        return [{ name: 'home_disk_size', type: 'number', default_value: '10', required: false }];
      },
    });
    await read('a');
    await read('a');
    expect(calls).toBe(1);
    await expect(read('importing')).rejects.toThrow("Job hasn't completed!");
    await expect(read('importing')).rejects.toThrow();
    expect(calls).toBe(3);
  });
});
