import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { templateVariablesFile } from '../../src/adapters/template-variables-file';
import { TemplateVariablesError } from '../../src/ports/template-variables';

describe('WSMIGRATE_TEMPLATE_VARIABLES: the file of values for sensitive template variables', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-vars-file-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  test("gives one template's values by organization/template, none for another; read again at each call", async () => {
    const path = file('ok.json', JSON.stringify({ 'coder/k8s-dev': { workspaces_namespace: 'team-a', use_kubeconfig: 'false' } }));
    const source = templateVariablesFile(path);
    expect(await source.valuesFor('coder', 'k8s-dev')).toEqual({ workspaces_namespace: 'team-a', use_kubeconfig: 'false' });
    expect(await source.valuesFor('coder', 'other')).toBeUndefined();
    expect(source.whereFor('coder', 'k8s-dev')).toBe(`key "coder/k8s-dev" of ${path} (WSMIGRATE_TEMPLATE_VARIABLES)`);
    writeFileSync(path, JSON.stringify({ 'coder/other': { token: 'x' } }));
    expect(await source.valuesFor('coder', 'other')).toEqual({ token: 'x' });
  });

  test.each([
    ['not JSON', '{"coder/k8s-dev": {"token": "s3cret-value"', /is not valid JSON; it must hold a JSON object/],
    ['an array', '["s3cret-value"]', /must hold a JSON object \{"<organization>\/<template>"/],
    ['a key without a slash', '{"k8s-dev": {"token": "s3cret-value"}}', /key "k8s-dev" is not "<organization>\/<template>" \(e\.g\. "coder\/k8s-dev"\)/],
    ['values not an object', '{"coder/k8s-dev": "s3cret-value"}', /"coder\/k8s-dev" must be an object of variable names to string values/],
    ['a number', '{"coder/k8s-dev": {"token": 123456, "ok": "s3cret-value"}}', /"coder\/k8s-dev" variable "token" must be a string .*write numbers and booleans in quotes/],
  ])('%s: a clear error naming the file, without any value from it', async (_, text, message) => {
    const path = file(`bad-${Math.random()}.json`, text);
    const err = await templateVariablesFile(path).valuesFor('coder', 'k8s-dev').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(TemplateVariablesError);
    expect(err?.message).toMatch(message);
    expect(err?.message).toContain(path);
    expect(err?.message).not.toContain('s3cret-value');
    expect(err?.message).not.toContain('123456');
  });

  test('a file gone since the worker started says so, with what to do', async () => {
    const missing = join(dir, 'nope.json');
    await expect(templateVariablesFile(missing).valuesFor('coder', 'k8s-dev')).rejects.toThrow(`WSMIGRATE_TEMPLATE_VARIABLES names ${missing}, which cannot be read (ENOENT); fix the path or unset it`);
  });
});
