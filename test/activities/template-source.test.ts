import { writeTar } from '../../src/adapters/template-tar';
import type { CoderApi } from '../../src/activities/ports';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';

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
