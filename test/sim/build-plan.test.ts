import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { planBuild, PlanError, type PlannedChange } from '../../src/sim/build-plan';
import { parseTemplateConfig, type TemplateConfig } from '../../src/sim/template-config';
import type { StateResource, TerraformStateV4 } from '../../src/sim/terraform-state';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';
import { buildResolver, type Transition, type WorkspaceContext } from '../../src/sim/workspace-context';
import { fixtureSource } from './helpers';

const WS_ID = '0b5c1f9e-1111-4222-8333-444455556666';

const ctx = (transition: Transition): WorkspaceContext => ({
  workspaceId: WS_ID,
  workspaceName: 'dev-1',
  ownerId: '9f1c1f9e-1111-4222-8333-444455556666',
  ownerUsername: 'alice',
  ownerFullName: 'Alice Liddell',
  ownerEmail: 'alice@example.com',
  templateId: 't',
  templateName: 'k8s-dev',
  templateVersionName: 'v',
  accessUrl: 'http://127.0.0.1:3000',
  transition,
  parameters: {},
});

function entry(type: string, name: string, attributes: Record<string, unknown>, indexKey?: number): StateResource {
  return {
    mode: 'managed',
    type,
    name,
    provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
    instances: [{ ...(indexKey !== undefined ? { index_key: indexKey } : {}), schema_version: 0, attributes, sensitive_attributes: [] }],
  };
}

const pvc = (type = 'kubernetes_persistent_volume_claim') => entry(type, 'home', { id: `coder/coder-${WS_ID}-home`, metadata: [{ name: `coder-${WS_ID}-home`, namespace: 'coder', uid: 'u-pvc' }] });
const deployment = (type = 'kubernetes_deployment', key: number | undefined = 0) => entry(type, 'main', { id: `coder/coder-${WS_ID}`, metadata: [{ name: `coder-${WS_ID}`, namespace: 'coder', uid: 'u-dep' }] }, key);
const agent = () => entry('coder_agent', 'main', { id: 'agent-id', token: 'x' });

function state(...resources: StateResource[]): TerraformStateV4 {
  return { version: 4, terraform_version: '1.11.4', serial: 3, lineage: 'l', outputs: {}, resources, check_results: null };
}

async function config(source: string): Promise<TemplateConfig> {
  return parseTemplateConfig([{ name: 'main.tf', content: source }]);
}

function plan(cfg: TemplateConfig, st: TerraformStateV4, transition: Transition, objectExists = () => true): string[] {
  const result = planBuild({ config: cfg, state: st, transition, resolve: buildResolver(ctx(transition), cfg, () => []), objectExists });
  return result.changes.map(summaryOf).sort();
}

function summaryOf(c: PlannedChange): string {
  const reason = c.action === 'destroy' ? ` (${c.reason})` : c.action === 'create' && c.drifted ? ' (drifted)' : c.action === 'create' && c.imported ? ' (import)' : '';
  return `${c.action} ${c.address}${reason}`;
}

describe('simulated Terraform planner', () => {
  let legacy: TemplateConfig;
  let versioned: TemplateConfig;
  let guarded: TemplateConfig;
  beforeAll(async () => {
    legacy = await config(K8S_TEMPLATE_MAIN_TF);
    versioned = await config(fixtureSource('template-v1'));
    guarded = await config(fixtureSource('template-v1-guard'));
  });

  test('a first start creates everything; count follows start_count', () => {
    expect(plan(legacy, state(), 'start')).toEqual(['create coder_agent.main', 'create kubernetes_deployment.main[0]', 'create kubernetes_persistent_volume_claim.home']);
    expect(plan(legacy, state(), 'stop')).toEqual(['create coder_agent.main', 'create kubernetes_persistent_volume_claim.home']);
  });

  test('a stop destroys the counted Deployment and keeps the PVC', () => {
    expect(plan(legacy, state(agent(), pvc(), deployment()), 'stop')).toEqual([
      'destroy kubernetes_deployment.main[0] (delete_because_count_index)',
      'keep coder_agent.main',
      'keep kubernetes_persistent_volume_claim.home',
    ]);
  });

  test('types are matched by name: a _v1 state entry under a deprecated config is destroyed and re-created', () => {
    expect(plan(legacy, state(agent(), pvc('kubernetes_persistent_volume_claim_v1')), 'start')).toEqual([
      'create kubernetes_deployment.main[0]',
      'create kubernetes_persistent_volume_claim.home',
      'destroy kubernetes_persistent_volume_claim_v1.home (delete_because_no_resource_config)',
      'keep coder_agent.main',
    ]);
    expect(plan(versioned, state(agent(), pvc('kubernetes_persistent_volume_claim_v1'), deployment('kubernetes_deployment_v1')), 'start')).toEqual([
      'keep coder_agent.main',
      'keep kubernetes_deployment_v1.main[0]',
      'keep kubernetes_persistent_volume_claim_v1.home',
    ]);
  });

  test('removed { destroy = false } forgets the named entry instead of destroying it', () => {
    expect(plan(guarded, state(agent(), pvc(), deployment()), 'start')).toEqual([
      'create kubernetes_deployment_v1.main[0]',
      'create kubernetes_persistent_volume_claim_v1.home',
      'destroy kubernetes_deployment.main[0] (delete_because_no_resource_config)',
      'forget kubernetes_persistent_volume_claim.home',
      'keep coder_agent.main',
    ]);
  });

  test('a zero-touch version: import{} adopts the live object of the same name (running and stopped), creates it when absent, and a stop forgets the old Deployment', async () => {
    const zt = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }], { zeroTouch: true }).files;
    const zeroTouch = await parseTemplateConfig(zt.map((f) => ({ name: f.path, content: f.content })));
    expect(plan(zeroTouch, state(agent(), pvc(), deployment()), 'start')).toEqual([
      'create kubernetes_deployment_v1.main[0] (import)',
      'create kubernetes_persistent_volume_claim_v1.home (import)',
      'forget kubernetes_deployment.main[0]',
      'forget kubernetes_persistent_volume_claim.home',
      'keep coder_agent.main',
    ]);
    expect(plan(zeroTouch, state(agent(), pvc(), deployment()), 'stop')).toEqual([
      'create kubernetes_persistent_volume_claim_v1.home (import)',
      'forget kubernetes_deployment.main[0]',
      'forget kubernetes_persistent_volume_claim.home',
      'keep coder_agent.main',
    ]);
    expect(plan(zeroTouch, state(), 'start', () => false)).toEqual([
      'create coder_agent.main',
      'create kubernetes_deployment_v1.main[0]',
      'create kubernetes_persistent_volume_claim_v1.home',
    ]);
    expect(plan(zeroTouch, state(agent(), pvc('kubernetes_persistent_volume_claim_v1'), deployment('kubernetes_deployment_v1')), 'start')).toEqual([
      'keep coder_agent.main',
      'keep kubernetes_deployment_v1.main[0]',
      'keep kubernetes_persistent_volume_claim_v1.home',
    ]);
  });

  test('removed with destroy = true (or no lifecycle) still destroys', async () => {
    const destroying = await config(`${fixtureSource('template-v1')}\nremoved {\n  from = kubernetes_persistent_volume_claim.home\n}\n`);
    expect(plan(destroying, state(pvc()), 'stop')).toContain('destroy kubernetes_persistent_volume_claim.home (delete_because_no_resource_config)');
  });

  test('a delete destroys everything in state, state-only entries included', () => {
    expect(plan(versioned, state(agent(), pvc(), deployment()), 'delete')).toEqual([
      'destroy coder_agent.main (destroy_plan)',
      'destroy kubernetes_deployment.main[0] (destroy_plan)',
      'destroy kubernetes_persistent_volume_claim.home (destroy_plan)',
    ]);
  });

  test('adding count moves the lone instance to [0] instead of replacing it', () => {
    expect(plan(legacy, state(agent(), pvc(), deployment('kubernetes_deployment', undefined)), 'start')).toContain('keep kubernetes_deployment.main[0]');
  });

  test('an object deleted outside Terraform is re-created (refresh drift)', () => {
    const exists = (id: { kind: string }) => id.kind !== 'PersistentVolumeClaim';
    expect(plan(legacy, state(agent(), pvc(), deployment()), 'start', exists as never)).toContain('create kubernetes_persistent_volume_claim.home (drifted)');
  });

  test('a changed name or namespace forces a replacement', async () => {
    const moved = await config(K8S_TEMPLATE_MAIN_TF.replace('default     = "coder"', 'default     = "workspaces"'));
    expect(plan(moved, state(agent(), pvc(), deployment()), 'start')).toEqual([
      'keep coder_agent.main',
      'replace kubernetes_deployment.main[0]',
      'replace kubernetes_persistent_volume_claim.home',
    ]);
  });

  test('literal counts and variable counts are honoured; anything else is refused with the file named', async () => {
    const counted = await config(
      'variable "replicas" {\n  default = 2\n}\nresource "kubernetes_secret" "a" {\n  count = 3\n}\nresource "kubernetes_secret" "b" {\n  count = var.replicas\n}\n',
    );
    expect(plan(counted, state(), 'start').filter((c) => c.startsWith('create kubernetes_secret.a'))).toHaveLength(3);
    expect(plan(counted, state(), 'stop').filter((c) => c.startsWith('create kubernetes_secret.b'))).toHaveLength(2);
    const weird = await config('resource "kubernetes_secret" "c" {\n  count = length(var.things)\n}\n');
    expect(() => plan(weird, state(), 'start')).toThrow(PlanError);
    expect(() => plan(weird, state(), 'start')).toThrow(/main\.tf: the count of kubernetes_secret\.c \(length\(var\.things\)\)/);
    const eachy = await config('resource "kubernetes_secret" "d" {\n  for_each = toset(["a"])\n}\n');
    expect(() => plan(eachy, state(), 'start')).toThrow(/for_each/);
  });
});
