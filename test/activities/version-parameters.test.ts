import { versionParametersReader } from '../../src/activities/cached-reads';
import { makePreflightWorkspace } from '../../src/activities/preflight-workspace';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';

const SIZE = `
data "coder_parameter" "size" {
  name    = "home_disk_size"
  type    = "number"
  default = 10
  mutable = true
}
`;
const OLD = K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "${data.coder_parameter.size.value}Gi"') + SIZE;
const migrated = (extra = '') => rewriteTemplate([{ path: 'main.tf', content: OLD + extra }], {}).files[0]!.content;

/**
 * A hand-pushed target version whose parameters the workspace's values do not satisfy: Coder refuses
 * the migration's build (400, coderd/wsbuilder/wsbuilder.go getParameters) only after the workspace
 * was stopped and backed up. Refused in preflight instead, before anything stops.
 */
describe('preflightWorkspace: a target version whose parameters would refuse the workspace\'s values', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 98, buildLatencyMs: 5, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }] });
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterAll(async () => sim.close());

  async function push(source: string): Promise<string> {
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: source }]));
    const version = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash });
    expect((await coder.waitForTemplateVersion(version.id)).job.status).toBe('succeeded');
    return version.id;
  }
  const preflight = (targetVersionId: string) =>
    makePreflightWorkspace({ coder, blobs: undefined as never, notifier: { notify: async () => undefined } }, cachedTemplateSourceLoader(coder))({
      owner: sim.workspaces()[0]!.owner,
      workspace: sim.workspaces()[0]!.name,
      template: sim.template.name,
      targetVersionId,
      strategy: 'rename',
    });
  const refusal = (targetVersionId: string) =>
    preflight(targetVersionId).then(
      () => undefined,
      (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string },
    );
  const buildParameterReads = () => sim.requestLog().filter((r) => /\/workspacebuilds\/[^/]+\/parameters$/.test(r.path)).length;
  const buildNumber = async () => (await coder.workspace(sim.workspaces()[0]!.id)).latest_build.build_number;

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
