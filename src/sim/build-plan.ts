import { evaluateStrict, evaluateValue, type Resolver } from './expression';
import { kubeKindOf } from './kube-kinds';
import type { ConfigResource, TemplateConfig } from './template-config';
import { instanceAddress, type StateInstance, type StateResource, type TerraformStateV4 } from './terraform-state';
import { startCountOf, type Transition } from './workspace-context';

export interface ObjectIdentity {
  kind: string;
  namespace: string;
  name: string;
}

interface FromState {
  stateResource: StateResource;
  instance: StateInstance;
}

export type PlannedChange =
  | ({ action: 'keep'; address: string; config: ConfigResource; indexKey?: number } & FromState)
  | { action: 'create'; address: string; config: ConfigResource; indexKey?: number; drifted?: boolean; imported?: boolean }
  | ({ action: 'replace'; address: string; config: ConfigResource; indexKey?: number } & FromState)
  | ({ action: 'destroy'; address: string; reason: 'delete_because_no_resource_config' | 'delete_because_count_index' | 'destroy_plan' } & FromState)
  | ({ action: 'forget'; address: string } & FromState);

export interface Plan {
  changes: PlannedChange[];
  /** Managed resources in apply order of creation (a resource after those it references). */
  createOrder: string[];
}

export interface PlanInput {
  config: TemplateConfig;
  state: TerraformStateV4;
  transition: Transition;
  /** Resolves variables, locals and data sources (not other resources: they are unknown at plan time). */
  resolve: Resolver;
  /** What the provider's refresh would find in the cluster. */
  objectExists(identity: ObjectIdentity): boolean;
}

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** Where a state entry's object lives, from its attributes (metadata, else its id). */
export function identityFromAttributes(type: string, attributes: Record<string, unknown>): ObjectIdentity | undefined {
  const kind = kubeKindOf(type);
  if (!kind) return undefined;
  const metadata = (attributes.metadata as Record<string, unknown>[] | undefined)?.[0];
  let name = typeof metadata?.name === 'string' ? metadata.name : undefined;
  let namespace = typeof metadata?.namespace === 'string' ? metadata.namespace : undefined;
  if (name === undefined && typeof attributes.id === 'string') {
    const parts = attributes.id.split('/');
    name = parts.pop();
    namespace = parts.pop();
  }
  if (name === undefined) return undefined;
  return { kind: kind.kind, namespace: kind.clusterScoped ? '' : (namespace ?? 'default'), name };
}

/** Where a config block's object will live; undefined when its name depends on something unknown at plan time. */
/**
 * A config whose metadata sets `generate_name` and no `name`: the API server picks the name at
 * create (the prefix and five random characters), and the provider keeps both in state
 * (hashicorp/kubernetes `metadata.generate_name`: ForceNew, conflicts with `name`; `name` then
 * computed). Such an object's identity is known only after it exists.
 */
export interface GeneratedNameConfig {
  kind: string;
  namespace: string;
  prefix: string;
}

export function generatedNameFromConfig(type: string, body: Record<string, unknown>, resolve: Resolver): GeneratedNameConfig | undefined {
  const kind = kubeKindOf(type);
  if (!kind) return undefined;
  const raw = ((body.metadata as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
  if (raw.name !== undefined || raw.generate_name === undefined) return undefined;
  const prefix = evaluateStrict(raw.generate_name, resolve);
  const ns = evaluateStrict(raw.namespace, resolve);
  if (prefix.unresolved.length || ns.unresolved.length || typeof prefix.value !== 'string' || prefix.value === '') return undefined;
  const namespace = typeof ns.value === 'string' ? ns.value : 'default';
  return { kind: kind.kind, namespace: kind.clusterScoped ? '' : namespace, prefix: prefix.value };
}

/** The generate_name a state entry was created with ('' when it was named). */
function generateNameInState(attributes: Record<string, unknown>): string {
  const metadata = (attributes.metadata as Record<string, unknown>[] | undefined)?.[0];
  return typeof metadata?.generate_name === 'string' ? metadata.generate_name : '';
}

export function identityFromConfig(type: string, body: Record<string, unknown>, resolve: Resolver): ObjectIdentity | undefined {
  const kind = kubeKindOf(type);
  if (!kind) return undefined;
  const raw = ((body.metadata as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
  const name = evaluateStrict(raw.name, resolve);
  const ns = evaluateStrict(raw.namespace, resolve);
  if (name.unresolved.length || ns.unresolved.length || typeof name.value !== 'string') return undefined;
  const metadata = { name: name.value, namespace: ns.value };
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : 'default';
  return { kind: kind.kind, namespace: kind.clusterScoped ? '' : namespace, name: metadata.name };
}

function instanceCount(resource: ConfigResource, transition: Transition, resolve: Resolver): number | undefined {
  if (resource.hasForEach) {
    throw new PlanError(`${resource.file}: ${resource.type}.${resource.name} uses for_each, which the simulator does not support; use count.`);
  }
  switch (resource.count.kind) {
    case 'single':
      return undefined;
    case 'literal':
      return resource.count.value;
    case 'startCount':
      return startCountOf(transition);
    case 'expression': {
      const value = evaluateValue(`\${${resource.count.expression}}`, resolve);
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
      throw new PlanError(
        `${resource.file}: the count of ${resource.type}.${resource.name} (${resource.count.expression}) cannot be evaluated by the simulator; ` +
          'use a literal or data.coder_workspace.me.start_count.',
      );
    }
  }
}

/** A Kubernetes quantity in bytes (`10Gi`, `500M`, `1024`); undefined for anything else. */
function quantityBytes(raw: unknown): number | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?\s*$/.exec(String(raw));
  if (!m) return undefined;
  const unit: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
  return Number(m[1]) * (m[2] ? (unit[m[2]] ?? 1) : 1);
}

const firstOf = (v: unknown): Record<string, unknown> | undefined => {
  const x = Array.isArray(v) ? (v[0] as unknown) : v;
  return x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
};

/**
 * A claim whose requested storage shrinks is replaced: hashicorp/kubernetes resource_kubernetes_persistent_volume_claim.go
 * CustomizeDiff ("Storage can only be increased in place. A new object will be created when the storage is
 * decreased": `diff.ForceNew`). A growth is an in-place update. Unknown or unparsable sizes are left alone.
 */
function claimShrinks(type: string, attributes: Record<string, unknown>, body: Record<string, unknown>, resolve: Resolver): boolean {
  if (kubeKindOf(type)?.kind !== 'PersistentVolumeClaim') return false;
  const inState = firstOf(firstOf(firstOf(attributes.spec)?.resources)?.requests)?.storage;
  const configured = firstOf(firstOf(firstOf(body.spec)?.resources)?.requests)?.storage;
  const wanted = evaluateStrict(configured, resolve);
  if (wanted.unresolved.length) return false;
  const before = quantityBytes(inState);
  const after = quantityBytes(wanted.value);
  return before !== undefined && after !== undefined && after < before;
}

function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

function orderByDependencies(resources: readonly ConfigResource[]): string[] {
  const byAddress = new Map(resources.map((r) => [`${r.type}.${r.name}`, r]));
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (address: string): void => {
    if (ordered.includes(address) || visiting.has(address)) return;
    visiting.add(address);
    for (const dep of byAddress.get(address)?.dependsOn ?? []) if (byAddress.has(dep)) visit(dep);
    visiting.delete(address);
    ordered.push(address);
  };
  for (const address of byAddress.keys()) visit(address);
  return ordered;
}

/**
 * Plans one build the way Terraform would for Coder: a delete destroys everything in state; start
 * and stop reconcile state with config (count follows start_count), destroy entries without config
 * unless a `removed { lifecycle { destroy = false } }` forgets them, and create what state lacks.
 * Types are compared by name, so a state entry renamed to `_v1` only survives under a `_v1` block.
 */
export function planBuild(input: PlanInput): Plan {
  const { config, state, transition, resolve } = input;
  const managed = state.resources.filter((r) => r.mode === 'managed' && r.module === undefined);
  const changes: PlannedChange[] = [];

  if (transition === 'delete') {
    for (const stateResource of managed) {
      for (const instance of stateResource.instances) {
        changes.push({ action: 'destroy', address: instanceAddress(stateResource, instance.index_key), reason: 'destroy_plan', stateResource, instance });
      }
    }
    return { changes, createOrder: [] };
  }

  const configByAddress = new Map(config.resources.map((r) => [`${r.type}.${r.name}`, r]));
  const desired = new Map<string, { config: ConfigResource; indexKey?: number }>();
  for (const resource of config.resources) {
    const count = instanceCount(resource, transition, resolve);
    if (count === undefined) desired.set(`${resource.type}.${resource.name}`, { config: resource });
    else for (let i = 0; i < count; i++) desired.set(instanceAddress({ mode: 'managed', ...resource }, i), { config: resource, indexKey: i });
  }

  const matched = new Set<string>();
  for (const stateResource of managed) {
    const base = `${stateResource.type}.${stateResource.name}`;
    const configResource = configByAddress.get(base);
    for (const instance of stateResource.instances) {
      const address = instanceAddress(stateResource, instance.index_key);
      if (!configResource) {
        const removed = config.removed.find((r) => r.from === base || r.from === address);
        if (removed && !removed.destroy) changes.push({ action: 'forget', address, stateResource, instance });
        else changes.push({ action: 'destroy', address, reason: 'delete_because_no_resource_config', stateResource, instance });
        continue;
      }
      // Adding or dropping count moves the lone instance between `x` and `x[0]`, as Terraform does implicitly.
      const counted = configResource.count.kind !== 'single';
      const effectiveKey = counted ? (instance.index_key ?? 0) : instance.index_key === 0 ? undefined : instance.index_key;
      const wanted = instanceAddress(stateResource, effectiveKey);
      const target = desired.get(wanted);
      if (!target || matched.has(wanted) || instance.deposed !== undefined) {
        changes.push({ action: 'destroy', address, reason: 'delete_because_count_index', stateResource, instance });
        continue;
      }
      matched.add(wanted);
      const current = identityFromAttributes(stateResource.type, instance.attributes);
      const configured = identityFromConfig(configResource.type, configResource.body, resolve);
      const generated = configured ? undefined : generatedNameFromConfig(configResource.type, configResource.body, resolve);
      // Terraform always knows whether a name changed: a name the simulator cannot evaluate must not read as "kept".
      if (current && !configured && !generated) {
        const metadata = ((configResource.body.metadata as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
        const { unresolved } = evaluateStrict([metadata.name, metadata.namespace], resolve);
        throw new PlanError(
          `${configResource.file}: ${wanted}: its metadata name or namespace ${unresolved.length ? `uses ${unresolved.map((e) => `\${${e}}`).join(', ')}, which the simulator cannot evaluate` : 'is an expression the simulator cannot evaluate'}, so it cannot tell whether the object would be replaced.`,
        );
      }
      // A generated name stays while the prefix and namespace do; either changed forces a new object.
      const generatedMoved = current !== undefined && generated !== undefined && (generated.namespace !== current.namespace || generated.prefix !== generateNameInState(instance.attributes));
      if (current && !input.objectExists(current)) {
        changes.push({ action: 'create', address: wanted, config: configResource, indexKey: target.indexKey, drifted: true });
      } else if ((current && configured && !sameIdentity(current, configured)) || generatedMoved || claimShrinks(configResource.type, instance.attributes, configResource.body, resolve)) {
        changes.push({ action: 'replace', address: wanted, config: configResource, indexKey: target.indexKey, stateResource, instance });
      } else {
        changes.push({ action: 'keep', address: wanted, config: configResource, indexKey: target.indexKey, stateResource, instance });
      }
    }
  }
  for (const [address, target] of desired) {
    if (matched.has(address)) continue;
    // An import{} block adopts the live object of the same name/namespace (the zero-touch lookup found it).
    const identity = config.imports.includes(address) ? identityFromConfig(target.config.type, target.config.body, resolve) : undefined;
    const imported = identity !== undefined && input.objectExists(identity);
    changes.push({ action: 'create', address, config: target.config, indexKey: target.indexKey, ...(imported ? { imported } : {}) });
  }
  return { changes, createOrder: orderByDependencies(config.resources) };
}
