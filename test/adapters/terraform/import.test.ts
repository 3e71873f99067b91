import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importResource } from '../../../src/adapters/terraform/import';
import { TerraformCommandError } from '../../../src/adapters/terraform/run';
import { stateList } from '../../../src/adapters/terraform/state-list';
import { planImports } from '../../../src/domain/import-plan';

const fixtures = join(__dirname, '../../fixtures/state');
const fixture = (name: string): string => readFileSync(join(fixtures, name), 'utf8');

describe('terraform import (real Terraform, up to the provider boundary)', () => {
  it('without the kubernetes provider installed, fails with an error that names the address and the ID', async () => {
    const state = fixture('count.tfstate');
    const [step] = planImports(state, { which: 'all', vars: { namespace: 'coder' } });
    let error: unknown;
    try {
      await importResource(state, { address: step.newAddress, id: step.importId }, { templateDir: join(fixtures, 'template-kubernetes'), vars: { namespace: 'coder' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TerraformCommandError);
    const message = (error as Error).message;
    expect(message).toContain('terraform import of kubernetes_persistent_volume_claim_v1.home[0] (import ID coder/coder-alice-dev-home) failed (exit 1)');
    expect(message).toMatch(/hashicorp\/kubernetes/);
    expect(message).not.toMatch(/secret-token|secret-agent-token/);
  });

  it('imports into a copy of the state with -var values, and leaves the template dir as it was', async () => {
    const templateDir = join(fixtures, 'template-builtin');
    const empty = JSON.stringify({ version: 4, terraform_version: '1.8.5', serial: 3, lineage: 'lin', outputs: {}, resources: [] });
    const output = await importResource(empty, { address: 'terraform_data.home[0]', id: 'home-id' }, { templateDir, init: true, vars: { namespace: 'coder' } });
    expect(await stateList(output)).toEqual(['terraform_data.home[0]']);
    expect(JSON.parse(output)).toMatchObject({ lineage: 'lin', resources: [{ instances: [{ index_key: 0, attributes: { id: 'home-id' } }] }] });
    expect(existsSync(join(templateDir, '.terraform'))).toBe(false);
    expect(existsSync(join(templateDir, '.terraform.lock.hcl'))).toBe(false);
  });

  it('fails when a required variable is not given, instead of waiting for input', async () => {
    const empty = JSON.stringify({ version: 4, serial: 1, lineage: 'l', resources: [] });
    await expect(
      importResource(empty, { address: 'terraform_data.home[0]', id: 'x' }, { templateDir: join(fixtures, 'template-builtin'), init: true }),
    ).rejects.toThrow(/terraform import of terraform_data\.home\[0\] \(import ID x\) failed[\s\S]*namespace/);
  });
});
