import { CoderClient, type BuildInfo, type TemplateVersion } from '../../src/adapters/coder';
import { BUILD_INFO_TTL_MS, cachedBuildInfo, succeededVersionReader, versionVariablesReader } from '../../src/activities/cached-reads';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';

/** What a worker keeps of Coder between the preflights of a fleet, and what it asks for again. */
describe('reads a worker keeps', () => {
  it("Coder's build info is asked once a minute, not once per workspace; a failed read is asked again", async () => {
    let now = 0;
    let calls = 0;
    const answers: (() => Promise<BuildInfo>)[] = [async () => Promise.reject(new Error('connection reset')), async () => ({ version: 'v2.31.7' }), async () => ({ version: 'v2.32.0' })];
    const read = cachedBuildInfo({ buildInfo: () => answers[calls++]!() }, BUILD_INFO_TTL_MS, () => now);
    await expect(read()).rejects.toThrow('connection reset');
    expect((await read()).version).toBe('v2.31.7');
    now += BUILD_INFO_TTL_MS - 1;
    expect((await read()).version).toBe('v2.31.7');
    expect(calls).toBe(2);
    now += 1;
    expect((await read()).version).toBe('v2.32.0');
    expect(calls).toBe(3);
  });

  it('a target version is kept once its import succeeded in a template; one still importing, failed or without a template is asked for again', async () => {
    const version = (status: string, templateId: string | null = 't1') => ({ id: 'v1', template_id: templateId, job: { status } }) as unknown as TemplateVersion;
    const answers = [version('pending'), version('failed'), version('succeeded', null), version('succeeded'), version('failed')];
    let calls = 0;
    const read = succeededVersionReader({ templateVersion: async () => answers[calls++]! });
    expect((await read('v1')).job.status).toBe('pending');
    expect((await read('v1')).job.status).toBe('failed');
    expect((await read('v1')).template_id).toBeNull();
    expect((await read('v1')).job.status).toBe('succeeded');
    expect((await read('v1')).job.status).toBe('succeeded');
    expect(calls).toBe(4);
  });

  describe('a version created without a template, as Coder answers it', () => {
    let sim: CoderSimulator | undefined;
    afterEach(async () => {
      await sim?.close();
      sim = undefined;
    });

    it("reads as having no template (Coder sends the nil UUID, not an omitted field) and is not kept", async () => {
      sim = await startSimulator({ workspaces: 0, seed: 41, buildLatencyMs: 5 });
      const coder = new CoderClient({ url: sim.url, token: sim.token });
      const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]));
      const res = await fetch(`${sim.url}/api/v2/organizations/${sim.orgId}/templateversions`, {
        method: 'POST',
        headers: { 'Coder-Session-Token': sim.token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ storage_method: 'file', provisioner: 'terraform', file_id: file.hash }),
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as { id: string; template_id: unknown };
      expect(created.template_id).toBe('00000000-0000-0000-0000-000000000000');
      const imported = await coder.waitForTemplateVersion(created.id);
      expect(imported.job.status).toBe('succeeded');
      expect(imported.template_id).toBeUndefined();
      let calls = 0;
      const read = succeededVersionReader({ templateVersion: async (id) => (calls++, coder.templateVersion(id)) });
      await read(created.id);
      await read(created.id);
      expect(calls).toBe(2);
    });
  });

  it("a version's stored variables are asked once per version; a refused read (412 while importing) is asked again", async () => {
    const calls: string[] = [];
    let refuse = true;
    const read = versionVariablesReader({
      templateVersionVariables: async (id) => {
        calls.push(id);
        if (refuse) {
          refuse = false;
          throw new Error("412 Job hasn't completed!");
        }
        return [{ name: 'namespace', type: 'string', value: `ns-${id}`, default_value: 'coder', required: false, sensitive: false }];
      },
    });
    await expect(read('v1')).rejects.toThrow('412');
    expect((await read('v1'))[0]?.value).toBe('ns-v1');
    expect((await read('v1'))[0]?.value).toBe('ns-v1');
    expect((await read('v2'))[0]?.value).toBe('ns-v2');
    expect(calls).toEqual(['v1', 'v1', 'v2']);
  });
});
