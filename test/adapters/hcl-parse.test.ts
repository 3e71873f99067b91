import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HclParseError, loadHclParser, parseTemplateFiles } from '../../src/adapters/hcl-parse';

const template = join(__dirname, '..', 'fixtures', 'plan', 'templates', 'k8s-old', 'main.tf');

describe('parseTemplateFiles', () => {
  it('returns hcl2json shapes: bodies as arrays, expressions as "${…}" strings', async () => {
    const [parsed] = await parseTemplateFiles([{ path: 'main.tf', content: readFileSync(template, 'utf8') }]);
    expect(parsed.file).toBe('main.tf');
    const json = parsed.json as { resource: Record<string, Record<string, { count?: unknown }[]>> };
    expect(json.resource.kubernetes_deployment.main).toHaveLength(1);
    expect(json.resource.kubernetes_deployment.main[0].count).toBe('${data.coder_workspace.me.start_count}');
    expect(json.resource.kubernetes_persistent_volume_claim.home[0]).not.toHaveProperty('count');
  });

  it('reads .tf.json files as JSON, which hcl2json cannot parse', async () => {
    const [parsed] = await parseTemplateFiles([{ path: 'extra.tf.json', content: '{"resource":{"kubernetes_secret":{"s":{"count":2}}}}' }]);
    expect(parsed.json).toEqual({ resource: { kubernetes_secret: { s: { count: 2 } } } });
  });

  it('names the file and the line of a syntax error', async () => {
    const bad = parseTemplateFiles([
      { path: 'ok.tf', content: 'data "coder_workspace" "me" {}\n' },
      { path: 'broken.tf', content: 'resource "kubernetes_secret" "s" {\n' },
    ]);
    await expect(bad).rejects.toThrow(HclParseError);
    await expect(bad).rejects.toThrow(/^broken\.tf: cannot parse HCL: \[broken\.tf:1,\d+-\d+: Unclosed configuration block/);
    await expect(parseTemplateFiles([{ path: 'x.tf.json', content: '{"resource":' }])).rejects.toThrow(/^x\.tf\.json: not valid JSON/);
  });

  it('loads the parser once per process: a worker loads it at start and every parse after uses that one', async () => {
    const first = loadHclParser();
    expect(loadHclParser()).toBe(first);
    await parseTemplateFiles([{ path: 'main.tf', content: 'data "coder_workspace" "me" {}\n' }]);
    expect(loadHclParser()).toBe(first);
    expect(typeof (await first).parse).toBe('function');
  });
});
