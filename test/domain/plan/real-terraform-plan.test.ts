import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';
import { classifyChanges } from '../../../src/domain/plan/classify';
import { planGuardVerdict } from '../../../src/domain/plan/guard';
import { plannedChangesFromText } from '../../../src/domain/plan/plan-json';
import { describeNeeds } from '../../harness/needs-tool';
import { installedTerraform, TERRAFORM_HINT } from '../../harness/terraform';

const terraform = installedTerraform();
const describeWithTerraform = describeNeeds(Boolean(terraform), 'Terraform', TERRAFORM_HINT);

// Proves the plan-JSON reader against the real binary, with only the builtin terraform_data (no provider, no network).
describeWithTerraform('plans from a real Terraform binary', () => {
  let dir: string;
  const run = (...args: string[]) =>
    execa(terraform!, args, { cwd: dir, env: { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' } });
  const config = (text: string) => writeFileSync(join(dir, 'main.tf'), text);

  async function planAs(format: 'show' | 'stream') {
    if (format === 'stream') return plannedChangesFromText((await run('plan', '-json', '-input=false', '-lock=false')).stdout, 'plan -json');
    await run('plan', '-input=false', '-lock=false', '-out=plan.bin');
    return plannedChangesFromText((await run('show', '-json', 'plan.bin')).stdout, 'show -json');
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-plan-'));
    config('resource "terraform_data" "a" {\n  input = "home"\n}\n');
    await run('init', '-input=false');
    await run('apply', '-auto-approve', '-input=false', '-lock=false');
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['show', 'stream'] as const)('renaming a -> b without moved is a delete and a create (%s format)', async (format) => {
    config('resource "terraform_data" "b" {\n  input = "home"\n}\n');
    const classified = classifyChanges(await planAs(format));
    expect(classified.map((c) => [c.address, c.kind])).toEqual(
      expect.arrayContaining([
        ['terraform_data.a', 'delete'],
        ['terraform_data.b', 'create'],
      ]),
    );
    expect(classified.find((c) => c.address === 'terraform_data.a')?.reason).toBe('delete_because_no_resource_config');
    expect(planGuardVerdict(classified, { transition: 'start', protectedAddresses: ['terraform_data.a'] }).verdict).toBe('deny');
  });

  it.each(['show', 'stream'] as const)('with removed { lifecycle { destroy = false } } it is a forget (%s format)', async (format) => {
    config(
      'resource "terraform_data" "b" {\n  input = "home"\n}\n' +
        'removed {\n  from = terraform_data.a\n  lifecycle {\n    destroy = false\n  }\n}\n',
    );
    const classified = classifyChanges(await planAs(format));
    expect(classified.find((c) => c.address === 'terraform_data.a')).toMatchObject({ kind: 'forget' });
    expect(classified.some((c) => c.kind === 'delete')).toBe(false);
    expect(planGuardVerdict(classified, { transition: 'start', protectedAddresses: ['terraform_data.a'] }).verdict).toBe('allow');
  });
});
