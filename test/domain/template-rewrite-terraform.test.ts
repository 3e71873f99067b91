import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import execa from 'execa';
import { terraformPath } from '../../src/config/tools';
import { rewriteTemplate, type TemplateFile } from '../../src/domain/template-rewrite';
import { itNeeds } from '../harness/needs-tool';

/** Real Terraform as a second opinion: the rewritten template and its guard file are valid, fmt-clean HCL. */
function findTerraform(): string | undefined {
  try {
    const path = terraformPath();
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const terraform = findTerraform();
const maybe = itNeeds(Boolean(terraform), 'Terraform', 'put terraform >= 1.8 on PATH or run bash scripts/bootstrap-tools.sh');

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
    const result = await execa(terraform!, ['fmt', '-check', '-recursive', '-diff', '.'], {
      cwd: dir,
      reject: false,
      env: { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
    });
    expect({ exitCode: result.exitCode, diff: result.stdout }).toEqual({ exitCode: 0, diff: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
