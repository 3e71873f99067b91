import { pack } from 'tar-stream';
import { isTerraformSource, readTar, writeTar } from '../../src/adapters/template-tar';

describe('template tar', () => {
  it('round-trips text and binary files byte for byte, in order', async () => {
    const files = [
      { path: 'main.tf', bytes: Buffer.from('resource "kubernetes_deployment" "main" {}\n') },
      { path: 'img/logo.png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]) },
    ];
    const back = await readTar(await writeTar(files));
    expect(back.map((f) => f.path)).toEqual(['main.tf', 'img/logo.png']);
    expect(back[1].bytes.equals(files[1].bytes)).toBe(true);
    expect(back[0].bytes.toString()).toBe(files[0].bytes.toString());
  });

  it('writes identical bytes for identical input (so a re-run uploads the same file)', async () => {
    const files = [{ path: 'main.tf', bytes: Buffer.from('x') }];
    expect((await writeTar(files)).equals(await writeTar(files))).toBe(true);
  });

  it('refuses archives that would escape the template directory', async () => {
    const p = pack();
    p.entry({ name: '../etc/passwd', size: 1 }, 'x');
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p) chunks.push(c as Buffer);
    await expect(readTar(Buffer.concat(chunks))).rejects.toThrow(/unsafe path '..\/etc\/passwd'/);
  });

  it('knows which files are Terraform source', () => {
    expect(isTerraformSource('main.tf')).toBe(true);
    expect(isTerraformSource('x.tf.json')).toBe(true);
    expect(isTerraformSource('terraform.tfvars')).toBe(false);
    expect(isTerraformSource('README.md')).toBe(false);
    // The root lock file: terraform init honours it, so the rewrite must see it; one elsewhere is never read.
    expect(isTerraformSource('.terraform.lock.hcl')).toBe(true);
    expect(isTerraformSource('modules/x/.terraform.lock.hcl')).toBe(false);
  });
});
