import { randomUUID } from 'node:crypto';
import { applyPlan, type ApplyOutcome } from '../../src/sim/build-apply';
import { planBuild } from '../../src/sim/build-plan';
import { KubeCluster } from '../../src/sim/kube-cluster';
import { StructuralProvisioner } from '../../src/sim/structural-provisioner';
import { parseTemplateConfig, type TemplateConfig } from '../../src/sim/template-config';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';
import { emptyState, parseState, serializeState, type StateResource, type TerraformStateV4 } from '../../src/sim/terraform-state';
import { buildResolver, type Transition, type WorkspaceContext } from '../../src/sim/workspace-context';

/**
 * The simulator's apply, on its own: what Terraform leaves in the state and in the cluster after a
 * build (provisioner/terraform/provision.go runs `terraform apply`; the state Coder stores is the file
 * it writes). A kinder apply here hides a lost home volume from every test above it.
 */
const WS_ID = '0b5c1f9e-1111-4222-8333-444455556666';
const PVC_NAME = `coder-${WS_ID}-home`;
const DEPLOYMENT_NAME = `coder-${WS_ID}`;

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

function build(cluster: KubeCluster, cfg: TemplateConfig, prior: TerraformStateV4, transition: Transition): ApplyOutcome {
  const c = ctx(transition);
  const plan = planBuild({
    config: cfg,
    state: prior,
    transition,
    resolve: buildResolver(c, cfg, () => []),
    objectExists: (id) => cluster.get(id.kind, id.namespace, id.name) !== undefined,
  });
  return applyPlan({ plan, config: cfg, priorState: prior, ctx: c, cluster, buildId: randomUUID(), stage: 'Starting workspace', newId: randomUUID });
}

const managed = (s: TerraformStateV4, type: string): StateResource | undefined => s.resources.find((r) => r.mode === 'managed' && r.type === type);
const uidIn = (r: StateResource | undefined, i = 0): unknown => (r?.instances[i]?.attributes.metadata as { uid?: string }[] | undefined)?.[0]?.uid;

describe('simulated apply (build-apply.ts)', () => {
  let cfg: TemplateConfig;
  let cluster: KubeCluster;
  beforeAll(async () => {
    cfg = await parseTemplateConfig([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
  });
  beforeEach(() => {
    cluster = new KubeCluster(randomUUID);
  });

  it('a stop destroys the deployment in the cluster and drops it from the state; the home claim stays, same uid; every write moves the serial on', () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    expect(started.error).toBeUndefined();
    const pvcUid = cluster.pvc('coder', PVC_NAME)?.uid;
    expect(pvcUid).toBeDefined();
    expect(cluster.get('Deployment', 'coder', DEPLOYMENT_NAME)).toBeDefined();
    expect(started.state.serial).toBe(1);
    // depends_on: Terraform creates the claim before the deployment that mounts it.
    const lines = started.logs.map((l) => l.output);
    const claimDone = lines.findIndex((l) => /kubernetes_persistent_volume_claim\.home: Creation complete/.test(l));
    const deploymentStarts = lines.findIndex((l) => /kubernetes_deployment\.main\[0\]: Creating\.\.\./.test(l));
    expect(claimDone).toBeGreaterThanOrEqual(0);
    expect(deploymentStarts).toBeGreaterThan(claimDone);

    const stopped = build(cluster, cfg, started.state, 'stop');
    expect(stopped.error).toBeUndefined();
    expect(cluster.get('Deployment', 'coder', DEPLOYMENT_NAME)).toBeUndefined();
    // Terraform removes a destroyed instance from the state it writes: a stopped workspace's state
    // names no deployment (the downgrade and hazard checks read this state).
    expect(managed(stopped.state, 'kubernetes_deployment')).toBeUndefined();
    expect(uidIn(managed(stopped.state, 'kubernetes_persistent_volume_claim'))).toBe(pvcUid);
    expect(cluster.pvc('coder', PVC_NAME)?.uid).toBe(pvcUid);
    expect(stopped.state.serial).toBe(2);
    expect(cluster.pvcLosses()).toEqual([]);
  });

  it("refresh follows the live object: a claim deleted and re-created outside Terraform is kept in the state under the new object's uid", () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    const oldUid = cluster.pvc('coder', PVC_NAME)?.uid;
    cluster.destroy('PersistentVolumeClaim', 'coder', PVC_NAME, { workspace: WS_ID, buildId: 'outside', workspaceDelete: false });
    const newUid = cluster.create({ kind: 'PersistentVolumeClaim', namespace: 'coder', name: PVC_NAME }).uid;
    expect(newUid).not.toBe(oldUid);

    const again = build(cluster, cfg, started.state, 'start');
    expect(again.error).toBeUndefined();
    // The provider's Read sets metadata.uid from the API server: a state that kept the old uid would
    // let a uid check call the replaced volume the backed-up one.
    expect(uidIn(managed(again.state, 'kubernetes_persistent_volume_claim'))).toBe(newUid);
  });

  it('creating an object that already exists in the cluster, with no import block, fails with AlreadyExists and adopts nothing', () => {
    const foreign = cluster.create({ kind: 'PersistentVolumeClaim', namespace: 'coder', name: PVC_NAME, data: 'their files' });
    const out = build(cluster, cfg, emptyState('l'), 'start');
    expect(out.error).toMatch(/persistentvolumeclaims "coder-.*-home" already exists \(AlreadyExists\)/);
    expect(managed(out.state, 'kubernetes_persistent_volume_claim')).toBeUndefined();
    expect(cluster.pvc('coder', PVC_NAME)).toMatchObject({ uid: foreign.uid, data: 'their files' });
  });

  it('an instance the config now counts moves from `x` to `x[0]` in the state: one instance, not two', () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    const dep = managed(started.state, 'kubernetes_deployment')!;
    // A state written before the template added count: the deployment without an index key.
    delete dep.instances[0]!.index_key;
    const again = build(cluster, cfg, started.state, 'start');
    expect(again.error).toBeUndefined();
    expect(managed(again.state, 'kubernetes_deployment')?.instances.map((i) => i.index_key)).toEqual([0]);
    // Terraform moves `x` to `x[0]` without touching the object.
    expect(again.destroyed).toBe(0);
    // and the build after it keeps the deployment rather than destroying a duplicate entry's object
    const third = build(cluster, cfg, again.state, 'start');
    expect(third.error).toBeUndefined();
    expect(third.destroyed).toBe(0);
  });

  it('a delete leaves a state with no resources, data sources included, and destroys the claim as a delete (no loss recorded)', () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    const deleted = build(cluster, cfg, started.state, 'delete');
    expect(deleted.error).toBeUndefined();
    expect(deleted.state.resources).toEqual([]);
    expect(cluster.pvc('coder', PVC_NAME)).toBeUndefined();
    expect(cluster.pvcLosses()).toEqual([]);
  });
  it('a claim deleted outside Terraform is created again: the state holds the new claim once, under its new uid', () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    const oldUid = cluster.pvc('coder', PVC_NAME)?.uid;
    cluster.destroy('PersistentVolumeClaim', 'coder', PVC_NAME, { workspace: WS_ID, buildId: 'outside', workspaceDelete: false });
    const again = build(cluster, cfg, started.state, 'start');
    expect(again.error).toBeUndefined();
    const newUid = cluster.pvc('coder', PVC_NAME)?.uid;
    expect(newUid).toBeDefined();
    expect(newUid).not.toBe(oldUid);
    const claims = managed(again.state, 'kubernetes_persistent_volume_claim');
    expect(claims?.instances).toHaveLength(1);
    expect(uidIn(claims)).toBe(newUid);
  });

  it("an object without a namespace goes to `default` (the provider's default) and is kept by the next build, not re-created", async () => {
    const bare = await parseTemplateConfig([
      {
        name: 'main.tf',
        content: 'data "coder_workspace" "me" {}\nresource "kubernetes_config_map" "c" {\n  metadata {\n    name = "c-${data.coder_workspace.me.id}"\n  }\n}\n',
      },
    ]);
    const first = build(cluster, bare, emptyState('l'), 'start');
    expect(first.error).toBeUndefined();
    const uid = cluster.get('ConfigMap', 'default', `c-${WS_ID}`)?.uid;
    expect(uid).toBeDefined();
    expect(managed(first.state, 'kubernetes_config_map')?.instances[0]?.attributes.id).toBe(`default/c-${WS_ID}`);
    const second = build(cluster, bare, first.state, 'start');
    expect(second.error).toBeUndefined();
    expect(second.destroyed + second.added).toBe(0);
    expect(cluster.get('ConfigMap', 'default', `c-${WS_ID}`)?.uid).toBe(uid);
  });

  it('an import block adopts the live object with its own uid, and creates nothing', async () => {
    const withImport = await parseTemplateConfig([
      {
        name: 'main.tf',
        content: `${K8S_TEMPLATE_MAIN_TF}\nimport {\n  to = kubernetes_persistent_volume_claim.home\n  id = "coder/${PVC_NAME}"\n}\n`,
      },
    ]);
    const theirs = cluster.create({ kind: 'PersistentVolumeClaim', namespace: 'coder', name: PVC_NAME, data: 'home files' });
    const out = build(cluster, withImport, emptyState('l'), 'start');
    expect(out.error).toBeUndefined();
    expect(uidIn(managed(out.state, 'kubernetes_persistent_volume_claim'))).toBe(theirs.uid);
    expect(cluster.pvc('coder', PVC_NAME)).toMatchObject({ uid: theirs.uid, data: 'home files' });
  });
  it("a claim whose name the new version changes is replaced (Terraform's ForceNew on metadata.name): the old volume is destroyed, a loss", async () => {
    const started = build(cluster, cfg, emptyState('l'), 'start');
    const oldUid = cluster.pvc('coder', PVC_NAME)?.uid;
    const renamed = await parseTemplateConfig([
      { name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace('"coder-${data.coder_workspace.me.id}-home"', '"home-${data.coder_workspace.me.id}"') },
    ]);
    const out = build(cluster, renamed, started.state, 'start');
    expect(out.error).toBeUndefined();
    expect(cluster.pvc('coder', PVC_NAME)).toBeUndefined();
    expect(cluster.pvc('coder', `home-${WS_ID}`)?.uid).not.toBe(oldUid);
    expect(cluster.pvcLosses()).toEqual([expect.objectContaining({ name: PVC_NAME, oldUid })]);
  });
});

describe('objects named by generate_name', () => {
  const source = (namespace: string) =>
    `data "coder_workspace" "me" {}\nresource "kubernetes_config_map" "g" {\n  metadata {\n    generate_name = "cfg-"\n    namespace     = "${namespace}"\n  }\n}\n`;

  it('keep their generated name from build to build, and are replaced (ForceNew) when the namespace moves', async () => {
    const cluster = new KubeCluster(randomUUID);
    const inA = await parseTemplateConfig([{ name: 'main.tf', content: source('team-a') }]);
    const first = build(cluster, inA, emptyState('l'), 'start');
    expect(first.error).toBeUndefined();
    const [made] = cluster.objects().filter((o) => o.kind === 'ConfigMap');
    expect(made).toMatchObject({ namespace: 'team-a', name: expect.stringMatching(/^cfg-[a-z0-9]{5}$/) });
    const again = build(cluster, inA, first.state, 'start');
    expect(again.destroyed + again.added).toBe(0);

    const inB = await parseTemplateConfig([{ name: 'main.tf', content: source('team-b') }]);
    const moved = build(cluster, inB, again.state, 'start');
    expect(moved.error).toBeUndefined();
    expect(moved.destroyed).toBe(1);
    expect(cluster.get('ConfigMap', 'team-a', made!.name)).toBeUndefined();
    expect(cluster.objects().filter((o) => o.kind === 'ConfigMap')).toEqual([expect.objectContaining({ namespace: 'team-b' })]);
  });

  it('counted: each instance keeps its own entry; dropping the count to 1 destroys [1] and keeps [0] with its uid', async () => {
    const counted = (n: number) =>
      `data "coder_workspace" "me" {}\nresource "kubernetes_config_map" "g" {\n  count = ${n}\n  metadata {\n    generate_name = "cfg-"\n    namespace     = "team-a"\n  }\n}\n`;
    const cluster = new KubeCluster(randomUUID);
    const two = build(cluster, await parseTemplateConfig([{ name: 'main.tf', content: counted(2) }]), emptyState('l'), 'start');
    expect(two.error).toBeUndefined();
    const entries = managed(two.state, 'kubernetes_config_map')!.instances;
    expect(entries.map((i) => i.index_key)).toEqual([0, 1]);
    const first = uidIn(managed(two.state, 'kubernetes_config_map'), 0);
    const one = build(cluster, await parseTemplateConfig([{ name: 'main.tf', content: counted(1) }]), two.state, 'start');
    expect(one.error).toBeUndefined();
    expect(one.destroyed).toBe(1);
    expect(managed(one.state, 'kubernetes_config_map')!.instances.map((i) => i.index_key)).toEqual([0]);
    expect(uidIn(managed(one.state, 'kubernetes_config_map'), 0)).toBe(first);
    expect(cluster.objects().filter((o) => o.kind === 'ConfigMap').map((o) => o.uid)).toEqual([first]);
  });
});

describe('the structural provisioner (structural-provisioner.ts)', () => {
  const request = (cfg: TemplateConfig, state: Buffer, newPvcData = '') => ({
    buildId: randomUUID(),
    state,
    ctx: ctx('start'),
    config: cfg,
    files: () => Promise.resolve([]),
    newPvcData,
    interrupted: new AbortController().signal,
  });

  it('a failed apply fails the job with its error and returns the partial state it wrote; a new claim holds the data it was given', async () => {
    const cfg = await parseTemplateConfig([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    const cluster = new KubeCluster(randomUUID);
    const p = new StructuralProvisioner(cluster, randomUUID);
    const ok = await p.provision(request(cfg, Buffer.alloc(0), 'seeded home'));
    expect(ok.error).toBeUndefined();
    expect(cluster.pvc('coder', PVC_NAME)?.data).toBe('seeded home');

    // The deployment exists outside the state: Terraform's create fails AlreadyExists after the claim is kept.
    const state = parseState(ok.state, 'l');
    state.resources = state.resources.filter((r) => r.type !== 'kubernetes_deployment');
    const failed = await p.provision(request(cfg, serializeState(state)));
    expect(failed.error).toMatch(/already exists/);
    expect(managed(parseState(failed.state, 'l'), 'kubernetes_persistent_volume_claim')).toBeDefined();
  });
});

describe('the fake cluster (kube-cluster.ts)', () => {
  it("deleting a namespace deletes everything in it, as Kubernetes' namespace controller does: a claim inside is a lost volume", () => {
    const cluster = new KubeCluster(randomUUID);
    cluster.create({ kind: 'Namespace', namespace: '', name: 'ws-1' });
    const claim = cluster.create({ kind: 'PersistentVolumeClaim', namespace: 'ws-1', name: 'home' });
    cluster.create({ kind: 'ConfigMap', namespace: 'ws-1', name: 'settings' });
    cluster.create({ kind: 'ConfigMap', namespace: 'other', name: 'settings' });
    cluster.destroy('Namespace', '', 'ws-1', { workspace: WS_ID, buildId: 'b', workspaceDelete: false });
    expect(cluster.objects().map((o) => `${o.kind}/${o.namespace}/${o.name}`)).toEqual(['ConfigMap/other/settings']);
    expect(cluster.pvcLosses()).toEqual([expect.objectContaining({ namespace: 'ws-1', name: 'home', oldUid: claim.uid })]);
  });
});
