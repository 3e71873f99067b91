import { join } from 'node:path';
import { executeImportPlan, ImportPlanExecutionError } from '../../../src/adapters/terraform/execute-import-plan';
import { stateList } from '../../../src/adapters/terraform/state-list';
import { importArgs, shellLine, stateRmArgs, type ImportStep } from '../../../src/domain/import-plan';

const templateDir = join(__dirname, '../../fixtures/state/template-builtin');
const builtin = 'provider["terraform.io/builtin/terraform"]';

const data = (id: string) => ({ schema_version: 0, attributes: { id, input: null, output: null, triggers_replace: null }, sensitive_attributes: [] });
const input = JSON.stringify(
  {
    version: 4,
    terraform_version: '1.8.5',
    serial: 5,
    lineage: 'lineage-1',
    outputs: {},
    resources: [
      { mode: 'managed', type: 'terraform_data', name: 'old', provider: builtin, instances: [{ index_key: 0, ...data('home-id') }] },
      { mode: 'managed', type: 'terraform_data', name: 'keep', provider: builtin, instances: [data('keep-id')] },
      { module: 'module.workspace[0]', mode: 'managed', type: 'terraform_data', name: 'legacy', provider: builtin, instances: [{ index_key: 'a b', ...data('ab-id') }] },
    ],
  },
  null,
  2,
);

function step(oldAddress: string, newAddress: string, importId: string): ImportStep {
  const rm = stateRmArgs('terraform.tfstate', [oldAddress]);
  const imp = importArgs('terraform.tfstate', newAddress, importId);
  return { oldAddress, newAddress, importId, stateRmArgs: rm, importArgs: imp, shell: [shellLine(rm), shellLine(imp)] };
}

describe('executeImportPlan (real Terraform, builtin resources)', () => {
  it('runs state rm then import for each step, in order, and returns the new state', async () => {
    const seen: string[] = [];
    const output = await executeImportPlan(
      input,
      [step('terraform_data.old[0]', 'terraform_data.home[0]', 'home-id'), step('module.workspace[0].terraform_data.legacy["a b"]', 'module.workspace[0].terraform_data.main["a b"]', 'ab-id')],
      { templateDir, init: true, vars: { namespace: 'coder' }, onStep: (i, s) => seen.push(`${i}:${s.newAddress}`) },
    );
    expect((await stateList(output)).sort()).toEqual(['module.workspace[0].terraform_data.main["a b"]', 'terraform_data.home[0]', 'terraform_data.keep']);
    const doc = JSON.parse(output);
    expect(doc.lineage).toBe('lineage-1');
    expect(doc.serial).toBeGreaterThan(5);
    expect(seen).toEqual(['0:terraform_data.home[0]', '1:module.workspace[0].terraform_data.main["a b"]']);
  });

  it('stops at the failing step, naming it and the phase, and says the input is unchanged', async () => {
    let error: unknown;
    try {
      await executeImportPlan(input, [step('terraform_data.old[0]', 'terraform_data.home[0]', 'home-id'), step('terraform_data.keep', 'terraform_data.nowhere', 'keep-id')], {
        templateDir,
        init: true,
        vars: { namespace: 'coder' },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportPlanExecutionError);
    const failure = error as ImportPlanExecutionError;
    expect([failure.stepIndex, failure.phase]).toEqual([1, 'import']);
    expect(failure.message).toMatch(/^Import plan step 2 \(terraform_data\.keep -> terraform_data\.nowhere\) failed at import: terraform import of terraform_data\.nowhere/);
    expect(failure.message).toMatch(/does not exist in the configuration/);
    expect(failure.message).toContain('the input state is unchanged');
  });
});
