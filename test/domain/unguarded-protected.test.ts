import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { unguardedProtected } from '../../src/domain/unguarded-protected';

const fixture = (dir: string) => readFileSync(join(__dirname, '..', 'fixtures', 'sim', dir, 'main.tf'), 'utf8');

describe('unguardedProtected: a _v1 version without removed{destroy=false} for its protected resources', () => {
  it('names the old address of a _v1 PVC with no guard', () => {
    expect(unguardedProtected([{ path: 'main.tf', content: fixture('template-v1') }])).toEqual(['kubernetes_persistent_volume_claim.home']);
  });
  it('passes the version wsmigrate migrate template pushes (its guard file)', () => {
    const old = [{ path: 'main.tf', content: readFileSync(join(__dirname, '..', 'fixtures', 'sim', 'template-v1', 'main.tf'), 'utf8').replace(/_v1"/g, '"') }];
    const { files } = rewriteTemplate(old);
    expect(unguardedProtected(files)).toEqual([]);
  });
  it('does not count a removed block that destroys, nor one in a module folder', () => {
    const v1 = fixture('template-v1');
    const destroys = 'removed {\n  from = kubernetes_persistent_volume_claim.home\n  lifecycle {\n    destroy = true\n  }\n}\n';
    expect(unguardedProtected([{ path: 'main.tf', content: v1 }, { path: 'guards.tf', content: destroys }])).toEqual(['kubernetes_persistent_volume_claim.home']);
    const keeps = destroys.replace('true', 'false');
    expect(unguardedProtected([{ path: 'main.tf', content: v1 }, { path: 'guards.tf', content: keeps }])).toEqual([]);
    expect(unguardedProtected([{ path: 'main.tf', content: v1 }, { path: 'modules/x/guards.tf', content: keeps }])).toEqual(['kubernetes_persistent_volume_claim.home']);
  });
  it('has nothing to say about a template with no _v1 protected resource', () => {
    expect(unguardedProtected([{ path: 'main.tf', content: 'resource "coder_agent" "main" {\n  os = "linux"\n}\n' }])).toEqual([]);
  });
});
