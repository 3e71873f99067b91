import type { KubeClusterView, KubeObject, PvcLoss } from './types';

const PVC_KIND = 'PersistentVolumeClaim';
const NAMESPACE_KIND = 'Namespace';

export class AlreadyExistsError extends Error {
  constructor(readonly object: KubeObject) {
    // The API server's wording (StatusReasonAlreadyExists), which the provider passes through.
    super(`${object.kind.toLowerCase()}s "${object.name}" already exists`);
    this.name = 'AlreadyExistsError';
  }
}

export interface CreateRequest {
  kind: string;
  namespace: string;
  name: string;
  data?: string;
}

/** Who asked for a destroy: a PVC destroyed outside a workspace delete is a lost home volume. */
export interface DestroyCause {
  workspace: string;
  buildId: string;
  workspaceDelete: boolean;
}

/**
 * The fake Kubernetes cluster behind every simulated workspace: objects keyed by
 * kind/namespace/name with a uid, and the record of every home volume that was lost.
 */
export class KubeCluster implements KubeClusterView {
  private readonly byKey = new Map<string, KubeObject>();
  private readonly losses: PvcLoss[] = [];

  constructor(private readonly newUid: () => string) {}

  private static key(kind: string, namespace: string, name: string): string {
    return `${kind}/${namespace}/${name}`;
  }

  objects(): KubeObject[] {
    return [...this.byKey.values()].map((o) => ({ ...o }));
  }

  get(kind: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.byKey.get(KubeCluster.key(kind, namespace, name));
    return found ? { ...found } : undefined;
  }

  pvc(namespace: string, name: string): KubeObject | undefined {
    return this.get(PVC_KIND, namespace, name);
  }

  pvcLosses(): PvcLoss[] {
    return this.losses.map((l) => ({ ...l }));
  }

  /** Like the API server: a second object with the same kind/namespace/name is refused. */
  create(req: CreateRequest): KubeObject {
    const key = KubeCluster.key(req.kind, req.namespace, req.name);
    const existing = this.byKey.get(key);
    if (existing) throw new AlreadyExistsError(existing);
    const object: KubeObject = {
      kind: req.kind,
      namespace: req.namespace,
      name: req.name,
      uid: this.newUid(),
      createdAt: new Date().toISOString(),
      ...(req.data !== undefined ? { data: req.data } : {}),
    };
    this.byKey.set(key, object);
    if (req.kind === PVC_KIND) {
      for (const loss of this.losses) {
        if (loss.namespace === req.namespace && loss.name === req.name && loss.newUid === undefined) loss.newUid = object.uid;
      }
    }
    return { ...object };
  }

  /** Deleting what is already gone is a no-op, as `kubectl delete --ignore-not-found` and the provider's 404 handling are. */
  destroy(kind: string, namespace: string, name: string, cause: DestroyCause): KubeObject | undefined {
    const key = KubeCluster.key(kind, namespace, name);
    const existing = this.byKey.get(key);
    if (!existing) return undefined;
    this.byKey.delete(key);
    if (kind === PVC_KIND && !cause.workspaceDelete) {
      this.losses.push({ workspace: cause.workspace, namespace, name, oldUid: existing.uid, buildId: cause.buildId });
    }
    // Kubernetes' namespace controller deletes everything in a deleted namespace, claims included.
    if (kind === NAMESPACE_KIND) {
      for (const inside of [...this.byKey.values()].filter((o) => o.namespace === name && o.kind !== NAMESPACE_KIND)) {
        this.destroy(inside.kind, inside.namespace, inside.name, cause);
      }
    }
    return { ...existing };
  }
}
