import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTemplateFiles } from '../../src/adapters/hcl-parse';
import { buildTemplateModel, TemplateModelError } from '../../src/domain/template-model';

const templates = join(__dirname, '..', 'fixtures', 'plan', 'templates');

async function parseDir(name: string) {
  const dir = join(templates, name);
  const files = readdirSync(dir).filter((f) => f.endsWith('.tf')).sort();
  return parseTemplateFiles(files.map((f) => ({ path: f, content: readFileSync(join(dir, f), 'utf8') })));
}

async function parseText(files: Record<string, string>) {
  return parseTemplateFiles(Object.entries(files).map(([path, content]) => ({ path, content })));
}

const resource = (model: ReturnType<typeof buildTemplateModel>, address: string) =>
  model.resources.find((r) => `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}` === address);

describe('buildTemplateModel on the Coder-like kubernetes templates', () => {
  it('finds the resources, data sources and the start_count gate of k8s-old', async () => {
    const model = buildTemplateModel(await parseDir('k8s-old'));
    expect(model.resources.map((r) => `${r.mode}:${r.type}.${r.name}`).sort()).toEqual([
      'data:coder_workspace.me',
      'data:coder_workspace_owner.me',
      'managed:coder_agent.main',
      'managed:kubernetes_deployment.main',
      'managed:kubernetes_persistent_volume_claim.home',
    ]);
    expect(resource(model, 'kubernetes_deployment.main')).toMatchObject({ count: { startCountOf: 'data.coder_workspace.me' }, file: 'main.tf' });
    expect(resource(model, 'kubernetes_persistent_volume_claim.home')).not.toHaveProperty('count');
    expect(model.removed).toEqual([]);
  });

  it('merges the files of k8s-new and reads its removed guard', async () => {
    const model = buildTemplateModel(await parseDir('k8s-new'), ['kubernetes_persistent_volume_claim_v1.home']);
    expect(resource(model, 'kubernetes_persistent_volume_claim_v1.home')).toBeDefined();
    expect(model.removed).toEqual([{ from: 'kubernetes_persistent_volume_claim.home', destroy: false, file: 'migration-guard.tf' }]);
    expect(model.protectedAddresses).toEqual(['kubernetes_persistent_volume_claim_v1.home']);
  });
});

describe('buildTemplateModel expressions (real hcl2json output)', () => {
  it.each([
    ['2', 2],
    ['"3"', 3],
    ['0', 0],
    ['data.coder_workspace.ws.start_count', { startCountOf: 'data.coder_workspace.ws' }],
    ['data.coder_workspace.me.start_count > 0 ? 1 : 0', 'unknown'],
    ['var.replicas', 'unknown'],
    ['length(var.names)', 'unknown'],
  ])('count = %s', async (expression, expected) => {
    const model = buildTemplateModel(await parseText({ 'main.tf': `resource "kubernetes_pod" "p" {\n  count = ${expression}\n}\n` }));
    expect(model.resources[0].count).toEqual(expected);
  });

  it.each([
    ['{ b = 1, "a.x" = 2 }', { keys: ['a.x', 'b'] }],
    ['{}', { keys: [] }],
    ['toset(["b", "a", "b"])', { keys: ['a', 'b'] }],
    ['toset([])', { keys: [] }],
    ['{ (var.k) = 1 }', 'unknown'],
    ['toset(var.names)', 'unknown'],
    ['toset(["a", "${var.x}"])', 'unknown'],
    ['var.map', 'unknown'],
    ['["a", "b"]', 'unknown'],
  ])('for_each = %s', async (expression, expected) => {
    const model = buildTemplateModel(await parseText({ 'main.tf': `resource "kubernetes_pod" "p" {\n  for_each = ${expression}\n}\n` }));
    expect(model.resources[0].forEach).toEqual(expected);
  });

  it('reads removed blocks with and without destroy = false, by resource or module', async () => {
    const model = buildTemplateModel(
      await parseText({
        'main.tf': [
          'removed {\n  from = kubernetes_secret.a\n}',
          'removed {\n  from = module.old\n  lifecycle {\n    destroy = false\n  }\n}',
          'removed {\n  from = module.m.kubernetes_secret.b\n  lifecycle {\n    destroy = true\n  }\n}',
        ].join('\n'),
      }),
    );
    expect(model.removed.map(({ from, destroy }) => [from, destroy])).toEqual([
      ['kubernetes_secret.a', true],
      ['module.old', false],
      ['module.m.kubernetes_secret.b', true],
    ]);
  });

  it('reads moved blocks and module names', async () => {
    const model = buildTemplateModel(
      await parseText({ 'main.tf': 'moved {\n  from = kubernetes_secret.a\n  to   = kubernetes_secret.b\n}\nmodule "db" {\n  source = "./db"\n}\n' }),
    );
    expect(model.moved).toEqual([{ from: 'kubernetes_secret.a', to: 'kubernetes_secret.b', file: 'main.tf' }]);
    expect(model.modules).toEqual(['db']);
  });

  it('reads .tf.json bodies written as bare objects', async () => {
    const model = buildTemplateModel(
      await parseText({
        'main.tf.json': JSON.stringify({
          resource: { kubernetes_secret: { s: { count: '${data.coder_workspace.me.start_count}' } } },
          data: { coder_workspace: { me: {} } },
          removed: [{ from: 'kubernetes_secret.old', lifecycle: { destroy: false } }],
        }),
      }),
    );
    expect(resource(model, 'kubernetes_secret.s')?.count).toEqual({ startCountOf: 'data.coder_workspace.me' });
    expect(resource(model, 'data.coder_workspace.me')).toBeDefined();
    expect(model.removed).toEqual([{ from: 'kubernetes_secret.old', destroy: false, file: 'main.tf.json' }]);
  });

  it('applies override files last, replacing count or for_each', async () => {
    const model = buildTemplateModel(
      await parseText({
        'a_override.tf': 'resource "kubernetes_pod" "p" {\n  for_each = { x = 1 }\n}\n',
        'main.tf': 'resource "kubernetes_pod" "p" {\n  count = 2\n}\n',
      }),
    );
    expect(model.resources).toEqual([{ mode: 'managed', type: 'kubernetes_pod', name: 'p', forEach: { keys: ['x'] }, file: 'main.tf' }]);
  });

  it('refuses a block declared twice, naming both files', async () => {
    const parsed = await parseText({
      'a.tf': 'resource "kubernetes_pod" "p" {}\n',
      'b.tf': 'resource "kubernetes_pod" "p" {}\n',
    });
    expect(() => buildTemplateModel(parsed)).toThrow(TemplateModelError);
    expect(() => buildTemplateModel(parsed)).toThrow('b.tf: kubernetes_pod.p is declared twice (also in a.tf)');
  });

  it('does not change its input', async () => {
    const parsed = await parseDir('k8s-new');
    const copy = structuredClone(parsed);
    buildTemplateModel(parsed, ['x.y']);
    expect(parsed).toEqual(copy);
  });
});
