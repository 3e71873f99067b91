import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';
import { classifyChanges } from '../../../src/domain/plan/classify';
import { planGuardVerdict } from '../../../src/domain/plan/guard';
import { plannedChangesFromText } from '../../../src/domain/plan/plan-json';
import { describeNeeds } from '../../harness/needs-tool';
import { installedTerraform, TERRAFORM_HINT } from '../../harness/terraform';
import { memoizedOracle } from '../../harness/oracle-memo';

const terraform = installedTerraform();
const describeWithTerraform = describeNeeds(Boolean(terraform), 'Terraform', TERRAFORM_HINT);

// Proves the plan-JSON reader against the real binary, with only the builtin terraform_data (no provider, no network).
describeWithTerraform('plans from a real Terraform binary', () => {
  const applied = 'resource "terraform_data" "a" {\n  input = "home"\n}\n';
  let dir: string | undefined;
  let ready: Promise<string> | undefined;
  const run = (cwd: string, ...args: string[]) => execa(terraform!, args, { cwd, env: { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' } });
  /** A working directory where `applied` is applied: made on the first plan Terraform is asked for. */
  const appliedDir = () =>
    (ready ??= (async () => {
      dir = mkdtempSync(join(tmpdir(), 'wsmigrate-plan-'));
      writeFileSync(join(dir, 'main.tf'), applied);
      await run(dir, 'init', '-input=false');
      await run(dir, 'apply', '-auto-approve', '-input=false', '-lock=false');
      return dir;
    })());

  /** Terraform's plan of `config` over the applied state, as `show -json` of a saved plan or as the `plan -json` stream. */
  async function planAs(format: 'show' | 'stream', config: string) {
    const text = await memoizedOracle(['plan', format, applied, config], async () => {
      const cwd = await appliedDir();
      writeFileSync(join(cwd, 'main.tf'), config);
      if (format === 'stream') return (await run(cwd, 'plan', '-json', '-input=false', '-lock=false')).stdout;
      await run(cwd, 'plan', '-input=false', '-lock=false', '-out=plan.bin');
      return (await run(cwd, 'show', '-json', 'plan.bin')).stdout;
    });
    return plannedChangesFromText(text, format === 'stream' ? 'plan -json' : 'show -json');
  }

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['show', 'stream'] as const)('renaming a -> b without moved is a delete and a create (%s format)', async (format) => {
    const classified = classifyChanges(await planAs(format, 'resource "terraform_data" "b" {\n  input = "home"\n}\n'));
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
    const classified = classifyChanges(
      await planAs(format, 'resource "terraform_data" "b" {\n  input = "home"\n}\n' + 'removed {\n  from = terraform_data.a\n  lifecycle {\n    destroy = false\n  }\n}\n'),
    );
    expect(classified.find((c) => c.address === 'terraform_data.a')).toMatchObject({ kind: 'forget' });
    expect(classified.some((c) => c.kind === 'delete')).toBe(false);
    expect(planGuardVerdict(classified, { transition: 'start', protectedAddresses: ['terraform_data.a'] }).verdict).toBe('allow');
  });
});
