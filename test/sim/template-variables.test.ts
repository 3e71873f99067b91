import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild } from './helpers';

interface VariableJson {
  name: string;
  value: string;
  default_value: string;
  required: boolean;
  sensitive: boolean;
}

/**
 * Template variables as Coder keeps them (coderd/provisionerdserver UpdateJob, coderd/templateversions.go):
 * each version stores the values its push gave in `user_variable_values`, else the defaults; a
 * later push does not inherit them; builds of a version plan with its own values.
 */
describe('simulator: template variables and provisioner tags per version', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 91, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  async function push(source: string, extra: Record<string, unknown> = {}): Promise<{ id: string; job: { status: string; error?: string; tags: Record<string, string> } }> {
    const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: await packTar([{ name: 'main.tf', content: source }]), contentType: 'application/x-tar' });
    const created = await api<{ id: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
      json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform', ...extra },
    });
    expect(created.status).toBe(201);
    for (;;) {
      const v = await api<{ id: string; job: { status: string; error?: string; tags: Record<string, string> } }>(sim, 'GET', `/templateversions/${created.body.id}`);
      if (!['pending', 'running'].includes(v.body.job.status)) return v.body;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const variables = async (versionId: string) => (await api<VariableJson[]>(sim, 'GET', `/templateversions/${versionId}/variables`)).body;

  test('a version pushed with user_variable_values builds with them; the seeded version reads its defaults', async () => {
    expect(await variables(sim.template.activeVersionId)).toEqual(
      expect.arrayContaining([{ name: 'namespace', description: 'The Kubernetes namespace that holds the workspaces.', type: 'string', value: 'coder', default_value: 'coder', required: false, sensitive: false }]),
    );
    const teamA = await push(K8S_TEMPLATE_MAIN_TF, { user_variable_values: [{ name: 'namespace', value: 'team-a' }] });
    expect(teamA.job.status).toBe('succeeded');
    expect((await variables(teamA.id)).find((v) => v.name === 'namespace')).toMatchObject({ value: 'team-a', default_value: 'coder' });
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'start', template_version_id: teamA.id });
    // The version's value moved the claim: a new one in team-a, the old one in coder destroyed.
    expect(sim.cluster.pvc('team-a', `coder-${ws.id}-home`)).toBeDefined();
    expect(sim.cluster.pvc('coder', `coder-${ws.id}-home`)).toBeUndefined();
    // A later push without values does not inherit them: the default again.
    const again = await push(K8S_TEMPLATE_MAIN_TF);
    expect((await variables(again.id)).find((v) => v.name === 'namespace')?.value).toBe('coder');
  });

  test('a required variable without a value fails the import, and the variables are still listed; a sensitive one reads *redacted*', async () => {
    const source = `${K8S_TEMPLATE_MAIN_TF}\nvariable "cluster" {\n  type = string\n}\nvariable "token" {\n  type      = string\n  sensitive = true\n  default   = "s3cret"\n}\n`;
    const failed = await push(source);
    expect(failed.job).toMatchObject({ status: 'failed', error: 'required template variables need values: cluster' });
    expect((await variables(failed.id)).find((v) => v.name === 'cluster')).toMatchObject({ value: '', required: true });
    const given = await push(source, { user_variable_values: [{ name: 'cluster', value: 'east' }] });
    expect(given.job.status).toBe('succeeded');
    expect((await variables(given.id)).find((v) => v.name === 'token')).toMatchObject({ value: '*redacted*', default_value: '*redacted*', sensitive: true });
    expect(JSON.stringify(await variables(given.id))).not.toContain('s3cret');
  });

  test("provisioner_tags go on the version's job and on every build of it; without them, Coder's defaults", async () => {
    const tagged = await push(K8S_TEMPLATE_MAIN_TF, { provisioner_tags: { cluster: 'east' } });
    expect(tagged.job.tags).toEqual({ scope: 'organization', owner: '', cluster: 'east' });
    const ws = sim.workspaces()[0]!;
    const build = await startBuild(sim, ws.id, { transition: 'stop', template_version_id: tagged.id });
    const read = await api<{ job: { tags: Record<string, string> } }>(sim, 'GET', `/workspacebuilds/${build.id}`);
    expect(read.body.job.tags).toEqual({ scope: 'organization', owner: '', cluster: 'east' });
    expect((await push(K8S_TEMPLATE_MAIN_TF)).job.tags).toEqual({ scope: 'organization', owner: '' });
  });
});
