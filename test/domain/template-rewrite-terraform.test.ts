import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { rewriteTemplate, type TemplateFile } from '../../src/domain/template-rewrite';
import { itNeeds } from '../harness/needs-tool';
import { installedTerraform, terraformFmtCheck, TERRAFORM_HINT } from '../harness/terraform';
import { memoizedOracle } from '../harness/oracle-memo';

/** Real Terraform as a second opinion: the rewritten template and its guard file are valid, fmt-clean HCL. */
const terraform = installedTerraform();
const maybe = itNeeds(Boolean(terraform), 'Terraform', TERRAFORM_HINT);

function loadTemplate(root: string): TemplateFile[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));
  return walk(root).map((abs) => ({ path: relative(root, abs), content: readFileSync(abs, 'utf8') }));
}

maybe('terraform fmt accepts the rewritten Coder template and its guard file unchanged', async () => {
  const { files, report } = rewriteTemplate(loadTemplate(join(__dirname, '..', 'fixtures', 'hcl', 'templates', 'coder-k8s')));
  expect(report.guards.length).toBeGreaterThan(0);
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tf-'));
  try {
    for (const f of files) {
      mkdirSync(dirname(join(dir, f.path)), { recursive: true });
      writeFileSync(join(dir, f.path), f.content);
    }
    const fmt = await memoizedOracle(['fmt -check -diff -recursive', files], () => terraformFmtCheck(terraform!, dir, ['-recursive', '.']));
    expect(fmt).toEqual({ exitCode: 0, diff: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
