import { generatedNameFromConfig, identityFromAttributes, identityFromConfig, type ObjectIdentity, type Plan, type PlannedChange } from './build-plan';
import { tfLine, type LogLine } from './build-log';
import { evaluateStrict, evaluateValue, type Resolver } from './expression';
import { kubeKindOf } from './kube-kinds';
import { AlreadyExistsError, type KubeCluster } from './kube-cluster';
import type { ConfigResource, TemplateConfig } from './template-config';
import { instanceAddress, providerOf, SIM_TERRAFORM_VERSION, type StateInstance, type StateResource, type TerraformStateV4 } from './terraform-state';
import { buildResolver, coderWorkspaceAttributes, coderWorkspaceOwnerAttributes, type WorkspaceContext } from './workspace-context';

export interface ApplyInput {
  plan: Plan;
  config: TemplateConfig;
  priorState: TerraformStateV4;
  ctx: WorkspaceContext;
  cluster: KubeCluster;
  buildId: string;
  stage: string;
  newId(): string;
  /** What a PVC created by this apply holds; fresh volumes are empty. */
  newPvcData?: string;
}

export interface ApplyOutcome {
  /** Written back even when the apply failed: Coder stores the partial state. */
  state: TerraformStateV4;
  logs: LogLine[];
  /** Set when the apply failed; the job's error text. */
  error?: string;
  added: number;
  destroyed: number;
}

/** Kinds the kubernetes provider gives schema_version 1 (the rest are 0). */
const SCHEMA_V1_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet', 'ReplicationController']);

const SDK_PRIVATE = Buffer.from(
  JSON.stringify({ 'e2bfb730-ecaa-11e6-8f88-34363bc7c4c0': { create: 600000000000, delete: 600000000000, update: 600000000000 }, schema_version: '1' }),
).toString('base64');

function clone<T>(value: T): T {
  return structuredClone(value);
}

class WorkingState {
  readonly resources: StateResource[];

  constructor(prior: TerraformStateV4) {
    this.resources = clone(prior.resources);
  }

  private find(mode: 'managed' | 'data', type: string, name: string): StateResource | undefined {
    return this.resources.find((r) => r.mode === mode && r.type === type && r.name === name && r.module === undefined);
  }

  remove(resource: StateResource, instance: StateInstance): void {
    const target = this.find(resource.mode, resource.type, resource.name);
    if (!target) return;
    target.instances = target.instances.filter((i) => !(i.index_key === instance.index_key && i.deposed === instance.deposed));
    if (target.instances.length === 0) this.resources.splice(this.resources.indexOf(target), 1);
  }

  put(mode: 'managed' | 'data', type: string, name: string, instance: StateInstance): void {
    let target = this.find(mode, type, name);
    if (!target) {
      target = { mode, type, name, provider: providerOf(type), instances: [] };
      this.resources.push(target);
    }
    target.instances = target.instances.filter((i) => i.index_key !== instance.index_key || i.deposed !== undefined);
    target.instances.push(instance);
    target.instances.sort((a, b) => Number(a.index_key ?? 0) - Number(b.index_key ?? 0));
  }

  replaceData(entries: readonly { type: string; name: string; attributes: Record<string, unknown> }[]): void {
    for (let i = this.resources.length - 1; i >= 0; i--) if (this.resources[i]?.mode === 'data') this.resources.splice(i, 1);
    const data = entries.map((e) => ({
      mode: 'data' as const,
      type: e.type,
      name: e.name,
      provider: providerOf(e.type),
      instances: [{ schema_version: 0, attributes: e.attributes, sensitive_attributes: [] }],
    }));
    this.resources.unshift(...data);
  }
}

function dataAttributes(type: string, ctx: WorkspaceContext, newId: () => string): Record<string, unknown> {
  if (type === 'coder_workspace') return coderWorkspaceAttributes(ctx);
  if (type === 'coder_workspace_owner') return coderWorkspaceOwnerAttributes(ctx);
  return { id: newId() };
}

function createdInstance(
  resource: ConfigResource,
  indexKey: number | undefined,
  resolve: Resolver,
  objectUid: string | undefined,
  newId: () => string,
  generatedName?: string,
): StateInstance {
  const attributes = evaluateValue(clone(resource.body), resolve) as Record<string, unknown>;
  const kind = kubeKindOf(resource.type);
  const dependencies = [...resource.dependsOn].sort();
  const base = {
    ...(indexKey !== undefined ? { index_key: indexKey } : {}),
    sensitive_attributes: [] as unknown[],
    ...(dependencies.length ? { dependencies } : {}),
  };
  if (kind) {
    const metadata = ((attributes.metadata as Record<string, unknown>[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
    const namespace = kind.clusterScoped ? undefined : typeof metadata.namespace === 'string' ? metadata.namespace : 'default';
    attributes.metadata = [
      {
        annotations: {},
        generate_name: '',
        generation: 0,
        labels: {},
        ...metadata,
        ...(generatedName !== undefined ? { name: generatedName } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        resource_version: String(parseInt(newId().slice(0, 5), 16)),
        uid: objectUid,
      },
    ];
    const name = generatedName ?? String(metadata.name);
    attributes.id = namespace !== undefined ? `${namespace}/${name}` : name;
    attributes.timeouts = null;
    return { schema_version: SCHEMA_V1_KINDS.has(kind.kind) ? 1 : 0, attributes, ...base, private: SDK_PRIVATE };
  }
  if (resource.type === 'coder_agent') {
    const id = newId();
    return {
      schema_version: 1,
      attributes: {
        auth: 'token',
        connection_timeout: 120,
        dir: null,
        display_apps: [],
        env: null,
        metadata: [],
        motd_file: null,
        order: null,
        shutdown_script: null,
        troubleshooting_url: null,
        ...attributes,
        id,
        init_script: `#!/usr/bin/env sh\n# coder agent bootstrap for agent ${id}\n`,
        token: newId(),
      },
      ...base,
      sensitive_attributes: [[{ type: 'get_attr', value: 'token' }]],
    };
  }
  return { schema_version: 0, attributes: { ...attributes, id: newId() }, ...base };
}

/** The API server's names for `generate_name`: the prefix and five of these (apimachinery's names.SimpleNameGenerator). */
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generatedName(prefix: string, newId: () => string): string {
  const hex = newId().replace(/[^0-9a-f]/g, '');
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[parseInt(hex.slice(i * 2, i * 2 + 2) || '0', 16) % NAME_SUFFIX_ALPHABET.length];
  return `${prefix}${suffix}`;
}

function kindIdentity(change: PlannedChange) {
  return 'instance' in change ? identityFromAttributes(change.stateResource.type, change.instance.attributes) : undefined;
}

/**
 * Applies a plan to the fake cluster and the state, in Terraform's order for this shape of
 * config: forget, then destroy, then create in dependency order. The first failure stops the
 * apply and what was applied before it stays in the returned state.
 */
export function applyPlan(input: ApplyInput): ApplyOutcome {
  const { plan, config, priorState, ctx, cluster, buildId, stage, newId, newPvcData = '' } = input;
  const working = new WorkingState(priorState);
  const logs: LogLine[] = [];
  const workspaceDelete = ctx.transition === 'delete';
  const cause = { workspace: ctx.workspaceId, buildId, workspaceDelete };
  let added = 0;
  let destroyed = 0;
  const finish = (error?: string): ApplyOutcome => {
    const state: TerraformStateV4 = {
      ...clone(priorState),
      terraform_version: SIM_TERRAFORM_VERSION,
      serial: (priorState.serial ?? 0) + 1,
      resources: working.resources,
    };
    if (!error) logs.push(tfLine(stage, `Apply complete! Resources: ${added} added, 0 changed, ${destroyed} destroyed.`));
    return { state, logs, added, destroyed, ...(error !== undefined ? { error } : {}) };
  };

  if (workspaceDelete) working.replaceData([]);
  else working.replaceData(config.dataSources.map((d) => ({ ...d, attributes: dataAttributes(d.type, ctx, newId) })));

  for (const change of plan.changes) {
    if (change.action !== 'forget') continue;
    working.remove(change.stateResource, change.instance);
    logs.push(tfLine(stage, `${change.address}: Removing from state (destroy = false)...`));
  }
  for (const change of plan.changes) {
    if (change.action !== 'destroy' && change.action !== 'replace') continue;
    const id = change.instance.attributes.id;
    logs.push(tfLine(stage, `${instanceAddress(change.stateResource, change.instance.index_key)}: Destroying...${typeof id === 'string' ? ` [id=${id}]` : ''}`));
    const identity = kindIdentity(change);
    if (identity) cluster.destroy(identity.kind, identity.namespace, identity.name, cause);
    working.remove(change.stateResource, change.instance);
    destroyed++;
    logs.push(tfLine(stage, `${instanceAddress(change.stateResource, change.instance.index_key)}: Destruction complete after 0s`));
  }
  if (workspaceDelete) {
    for (const r of [...working.resources]) for (const i of [...r.instances]) working.remove(r, i);
    return finish();
  }

  const resolve = buildResolver(ctx, config, () => working.resources);
  const creates = plan.changes.filter((c): c is Extract<PlannedChange, { action: 'create' | 'replace' }> => c.action === 'create' || c.action === 'replace');
  const keeps = plan.changes.filter((c): c is Extract<PlannedChange, { action: 'keep' }> => c.action === 'keep');
  for (const keep of keeps) {
    const instance = clone(keep.instance);
    if (keep.indexKey === undefined) delete instance.index_key;
    else instance.index_key = keep.indexKey;
    const identity = identityFromAttributes(keep.stateResource.type, instance.attributes);
    const live = identity ? cluster.get(identity.kind, identity.namespace, identity.name) : undefined;
    const metadata = (instance.attributes.metadata as Record<string, unknown>[] | undefined)?.[0];
    // Refresh reads the live object: a state entry follows the object's current uid.
    if (live && metadata) metadata.uid = live.uid;
    working.remove(keep.stateResource, keep.instance);
    working.put('managed', keep.config.type, keep.config.name, instance);
  }
  const createsInOrder = [...creates].sort(
    (a, b) => plan.createOrder.indexOf(`${a.config.type}.${a.config.name}`) - plan.createOrder.indexOf(`${b.config.type}.${b.config.name}`),
  );
  for (const change of createsInOrder) {
    const { config: resource } = change;
    logs.push(tfLine(stage, `${change.address}: Creating...`));
    const generated = generatedNameFromConfig(resource.type, resource.body, resolve);
    const identity: ObjectIdentity | undefined = generated
      ? { kind: generated.kind, namespace: generated.namespace, name: generatedName(generated.prefix, newId) }
      : identityFromConfig(resource.type, resource.body, resolve);
    let uid: string | undefined;
    if (kubeKindOf(resource.type)) {
      if (!identity) {
        const metadata = ((resource.body.metadata as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
        const { unresolved } = evaluateStrict([metadata.name, metadata.namespace], resolve);
        const detail = unresolved.length
          ? `its metadata name or namespace uses ${unresolved.map((e) => `\${${e}}`).join(', ')}, which the simulator cannot evaluate`
          : 'it has no metadata name';
        const message = `${change.address} (${resource.file}): ${detail}.`;
        logs.push(tfLine(stage, `Error: ${message}`, 'error'));
        return finish(message);
      }
      const live = change.action === 'create' && change.imported ? cluster.get(identity.kind, identity.namespace, identity.name) : undefined;
      if (live) {
        const instance = createdInstance(resource, change.indexKey, resolve, live.uid, newId);
        working.put('managed', resource.type, resource.name, instance);
        logs.push(tfLine(stage, `${change.address}: Import complete [id=${identity.namespace ? `${identity.namespace}/` : ''}${identity.name}]`));
        continue;
      }
      try {
        uid = cluster.create({ ...identity, ...(identity.kind === 'PersistentVolumeClaim' ? { data: newPvcData } : {}) }).uid;
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
        const message = `${err.message} (AlreadyExists), with ${change.address} on ${resource.file}`;
        logs.push(tfLine(stage, `Error: ${err.message}`, 'error'));
        logs.push(tfLine(stage, `  with ${change.address},`, 'error'));
        logs.push(tfLine(stage, `  on ${resource.file}, in resource "${resource.type}" "${resource.name}"`, 'error'));
        return finish(message);
      }
    }
    const instance = createdInstance(resource, change.indexKey, resolve, uid, newId, generated ? identity?.name : undefined);
    working.put('managed', resource.type, resource.name, instance);
    added++;
    const id = instance.attributes.id;
    logs.push(tfLine(stage, `${change.address}: Creation complete after 1s${typeof id === 'string' ? ` [id=${id}]` : ''}`));
  }
  return finish();
}
