import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTemplateConfig } from '../../src/sim/template-config';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';
import { fixtureSource } from './helpers';
import { itNeeds } from '../harness/needs-tool';
import { installedTerraform, terraformFmtCheck, TERRAFORM_HINT } from '../harness/terraform';

const terraform = installedTerraform();
const withTerraform = itNeeds(Boolean(terraform), 'Terraform', TERRAFORM_HINT);

const SOURCES: [string, string][] = [
  ['seeded template', K8S_TEMPLATE_MAIN_TF],
  ['_v1 fixture', fixtureSource('template-v1')],
  ['_v1 guard fixture', fixtureSource('template-v1-guard')],
];

describe("the simulator's template sources", () => {
  withTerraform.each(SOURCES)('real Terraform parses the %s and finds it fmt-clean', async (_label, source) => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-sim-tf-'));
    try {
      writeFileSync(join(dir, 'main.tf'), source);
      expect(await terraformFmtCheck(terraform as string, dir, ['main.tf'])).toEqual({ exitCode: 0, diff: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the seeded template is a Coder Kubernetes template on the deprecated types, with the shape the runbook assumes', async () => {
    const config = await parseTemplateConfig([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    const byAddress = new Map(config.resources.map((r) => [`${r.type}.${r.name}`, r]));
    expect([...byAddress.keys()].sort()).toEqual(['coder_agent.main', 'kubernetes_deployment.main', 'kubernetes_persistent_volume_claim.home']);
    expect(byAddress.get('kubernetes_persistent_volume_claim.home')?.count).toEqual({ kind: 'single' });
    expect(byAddress.get('kubernetes_deployment.main')?.count).toEqual({ kind: 'startCount' });
    expect(byAddress.get('kubernetes_deployment.main')?.dependsOn).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim.home', 'coder_agent.main']));
    expect(config.dataSources).toEqual([
      { type: 'coder_workspace', name: 'me', body: {} },
      { type: 'coder_workspace_owner', name: 'me', body: {} },
    ]);
    expect(K8S_TEMPLATE_MAIN_TF).toMatch(/required_providers \{[\s\S]*coder = \{[\s\S]*kubernetes = \{/);
  });

  test('the guard fixture forgets the deprecated PVC instead of destroying it', async () => {
    const config = await parseTemplateConfig([{ name: 'main.tf', content: fixtureSource('template-v1-guard') }]);
    expect(config.removed).toEqual([{ from: 'kubernetes_persistent_volume_claim.home', destroy: false }]);
  });
});
