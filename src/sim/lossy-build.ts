import type { KubeCluster } from './kube-cluster';
import { takeBuildScopedFault } from './build-fault-match';

/**
 * A build that succeeds but loses a protected object, the way a bad template version or a
 * provider bug would: `forget` drops the resource from the state the build writes (the object
 * stays in the cluster), `replace` destroys the PVC and creates it again under a new uid (and the
 * state records the new uid). For tests of the checks that must notice; one kind per fault.
 */
export interface LossyBuildFault {
  how: 'forget' | 'replace';
  /** Config address in the state, e.g. `kubernetes_persistent_volume_claim_v1.home`. */
  address: string;
  workspaceId?: string;
  transition?: 'start' | 'stop';
  /** How many matching builds misbehave; unlimited when absent. */
  times?: number;
}

interface StateJson {
  resources?: { mode?: string; module?: string; type: string; name: string; instances?: { attributes?: { metadata?: { name?: string; namespace?: string; uid?: string }[] } }[] }[];
}

const PVC_TYPES = new Set(['kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1']);

/**
 * True when the fault applies to this build; counts it down. A build whose state does not hold the
 * address is left alone and not counted: "replace the migrated claim" waits for the build that writes
 * it (the migration's), whatever builds of the old types come before.
 */
export function takeLossyBuild(fault: LossyBuildFault | undefined, build: { workspaceId: string; transition: string; state: Buffer }): fault is LossyBuildFault {
  if (!fault || indexOfAddress(parseState(build.state), fault.address) < 0) return false;
  return takeBuildScopedFault(fault, build);
}

function parseState(state: Buffer): StateJson {
  try {
    return JSON.parse(state.toString('utf8')) as StateJson;
  } catch {
    return {};
  }
}

function indexOfAddress(json: StateJson, address: string): number {
  return (json.resources ?? []).findIndex((r) => (r.mode ?? 'managed') === 'managed' && !r.module && `${r.type}.${r.name}` === address);
}

/** The state the misbehaving build writes instead of `state`; the cluster changes for `replace`. */
export function loseFromState(fault: LossyBuildFault, state: Buffer, cluster: KubeCluster, cause: { workspace: string; buildId: string }): Buffer {
  const json = JSON.parse(state.toString('utf8')) as StateJson;
  const resources = json.resources ?? [];
  const at = indexOfAddress(json, fault.address);
  if (at < 0) throw new Error(`lossyBuild fault: the build's state has no ${fault.address}`);
  if (fault.how === 'forget') {
    resources.splice(at, 1);
  } else {
    const r = resources[at];
    if (!PVC_TYPES.has(r.type)) throw new Error(`lossyBuild fault: replace supports PVCs only, not ${r.type}`);
    for (const inst of r.instances ?? []) {
      const meta = inst.attributes?.metadata?.[0];
      if (!meta?.name) continue;
      const namespace = meta.namespace ?? 'default';
      cluster.destroy('PersistentVolumeClaim', namespace, meta.name, { ...cause, workspaceDelete: false });
      meta.uid = cluster.create({ kind: 'PersistentVolumeClaim', namespace, name: meta.name, data: '' }).uid;
    }
  }
  return Buffer.from(`${JSON.stringify(json, null, 2)}\n`);
}
