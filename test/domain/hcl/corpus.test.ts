import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@cdktf/hcl2json';
import { rewriteTemplate } from '../../../src/domain/template-rewrite';
import { memoizedOracle } from '../../harness/oracle-memo';
import { renameInParsedHcl, renameInParsedJson, type OracleOptions } from './hcl2json-oracle';

const CASES = join(__dirname, '..', '..', 'fixtures', 'hcl', 'cases');

interface Case {
  name: string;
  ext: string;
  input: string;
  expected: string;
  options: OracleOptions;
}

function loadCases(): Case[] {
  return readdirSync(CASES)
    .sort()
    .map((name) => {
      const dir = join(CASES, name);
      const inputFile = readdirSync(dir).find((f) => f.startsWith('input.'));
      if (!inputFile) throw new Error(`fixture ${name} has no input.* file`);
      const ext = inputFile.slice('input.'.length);
      const optionsFile = join(dir, 'options.json');
      return {
        name,
        ext,
        input: readFileSync(join(dir, inputFile), 'utf8'),
        expected: readFileSync(join(dir, `expected.${ext}`), 'utf8'),
        options: { renameDifferent: false, ...(existsSync(optionsFile) ? JSON.parse(readFileSync(optionsFile, 'utf8')) : {}) },
      };
    });
}

const cases = loadCases();

function rewriteOne(c: Case, content: string): string {
  const path = `main.${c.ext}`;
  const { files } = rewriteTemplate([{ path, content }], { renameDifferent: c.options.renameDifferent });
  return files.find((f) => f.path === path)!.content;
}

async function parsed(c: Case, content: string): Promise<unknown> {
  const text = content.replace(/^\uFEFF/, '');
  return c.ext.endsWith('json') ? JSON.parse(text) : memoizedOracle(['hcl2json parse', c.ext, text], () => parse(`main.${c.ext}`, text));
}

test('the corpus holds at least 40 cases, native and JSON', () => {
  expect(cases.length).toBeGreaterThanOrEqual(40);
  expect(cases.some((c) => c.ext === 'tf.json')).toBe(true);
  expect(cases.some((c) => c.ext === 'tftest.hcl')).toBe(true);
});

describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  test('rewrites to expected, byte for byte', () => {
    expect(rewriteOne(c, c.input)).toBe(c.expected);
  });

  test('parses like the input with the rename applied (hcl2json as the oracle)', async () => {
    const output = rewriteOne(c, c.input);
    const before = (await parsed(c, c.input)) as never;
    const oracle = c.ext.endsWith('json') ? await renameInParsedJson(before, c.options) : await renameInParsedHcl(before, c.options);
    expect(await parsed(c, output)).toEqual(oracle);
  });

  test('is idempotent', () => {
    const once = rewriteOne(c, c.input);
    expect(rewriteOne(c, once)).toBe(once);
  });
});
