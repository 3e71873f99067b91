import { writeTar } from '../../src/adapters/template-tar';
import type { CoderApi } from '../../src/activities/ports';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

function fakeCoder(tar: Buffer, failFirst = false) {
  const calls = { versions: 0, downloads: 0 };
  let failed = !failFirst;
  const coder = {
    async templateVersion(id: string) {
      calls.versions++;
      return { id, job: { file_id: `file-of-${id}` } };
    },
    async downloadFile() {
      calls.downloads++;
      if (!failed) {
        failed = true;
        throw new Error('connection reset');
      }
      return tar;
    },
  } as unknown as CoderApi;
  return { coder, calls };
}

describe('cachedTemplateSourceLoader', () => {
  let tar: Buffer;
  beforeAll(async () => {
    tar = await writeTar([
      { path: 'main.tf', bytes: Buffer.from('resource "kubernetes_deployment" "main" {}\n') },
      { path: 'README.md', bytes: Buffer.from('# hi') },
    ]);
  });

  it('downloads a version once however many workspaces are verified against it', async () => {
    const { coder, calls } = fakeCoder(tar);
    const load = cachedTemplateSourceLoader(coder);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => load('v1', `ws-${i}`)));
    expect(calls.downloads).toBe(1);
    expect(results[19].terraform).toEqual([{ path: 'main.tf', content: 'resource "kubernetes_deployment" "main" {}\n' }]);
    expect(results[0].archive.map((f) => f.path)).toEqual(['main.tf', 'README.md']);
  });

  it('does not keep a failed download, so the activity retry asks Coder again', async () => {
    const { coder, calls } = fakeCoder(tar, true);
    const load = cachedTemplateSourceLoader(coder);
    await expect(load('v1', 'ws')).rejects.toThrow(/connection reset/);
    await expect(load('v1', 'ws')).resolves.toMatchObject({ fileId: 'file-of-v1' });
    expect(calls.downloads).toBe(2);
  });

  it('keeps only the most recently used versions', async () => {
    const { coder, calls } = fakeCoder(tar);
    const load = cachedTemplateSourceLoader(coder, 2);
    await load('v1', 'ws');
    await load('v2', 'ws');
    await load('v1', 'ws'); // v1 is now the most recent
    await load('v3', 'ws'); // evicts v2
    await load('v1', 'ws');
    expect(calls.downloads).toBe(3);
    await load('v2', 'ws');
    expect(calls.downloads).toBe(4);
  });
});

describe("a template version's source read from Coder", () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());
  const load = () => cachedTemplateSourceLoader(new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 1 } }));

  it("reads the seeded version's files, and names its step and the workspace when Coder cannot give the version or its file", async () => {
    const source = await load()(sim.template.originalVersionId, 'alice/dev');
    expect(source.terraform.map((f) => f.path)).toEqual(['main.tf']);
    await expect(load()('00000000-0000-4000-8000-00000000000a', 'alice/dev')).rejects.toMatchObject({ type: 'CoderApi.not-found', message: expect.stringMatching(/^read template source failed for alice\/dev: /) });
    sim.setFaults({ error500Rate: 1, only: ['/api/v2/files/'] });
    try {
      await expect(load()(sim.template.originalVersionId, 'alice/dev')).rejects.toMatchObject({ type: 'CoderApi.server', message: expect.stringMatching(/^read template source failed for alice\/dev: /) });
    } finally {
      sim.setFaults(undefined);
    }
  });
});
