import { lookupDeprecated, lookupReplacement } from '../domain/type-map';

export interface KubeKind {
  /** e.g. PersistentVolumeClaim; the deprecated and versioned type of one pair share it. */
  readonly kind: string;
  readonly clusterScoped: boolean;
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'CsiDriver',
  'CertificateSigningRequest',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ApiService',
  'PodSecurityPolicy',
]);

function pascal(snake: string): string {
  return snake
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The cluster kind a managed kubernetes_* type creates, or undefined for types that only live in
 * state (coder_*, random_*, and kubernetes helpers such as kubernetes_labels).
 * Both names of a twin pair map to one kind, which is why a renamed state entry keeps its object.
 */
export function kubeKindOf(type: string): KubeKind | undefined {
  const mapping = lookupDeprecated('managed', type) ?? lookupReplacement('managed', type);
  if (!mapping) return undefined;
  const bare = mapping.replacement.replace(/^kubernetes_/, '').replace(/_v\d+(beta\d+)?$/, '');
  const kind = pascal(bare);
  return { kind, clusterScoped: CLUSTER_SCOPED.has(kind) };
}
