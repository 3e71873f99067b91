/**
 * Every deprecated hashicorp/kubernetes type and its versioned twin.
 *
 * SAME: both names are built by one provider constructor (same schema, schema_version, ID format),
 * so renaming the type in state is lossless. DIFFERENT: another implementation or API version;
 * the state must be re-created with `terraform import`, never renamed.
 * Source of truth: data/kubernetes-type-map.csv (a test keeps this table equal to it).
 */
export type Compat = 'SAME' | 'DIFFERENT';
export type ResourceMode = 'managed' | 'data';

export interface TypeMapping {
  readonly mode: ResourceMode;
  readonly deprecated: string;
  readonly replacement: string;
  readonly compat: Compat;
  readonly note?: string;
}

const managed = (deprecated: string, replacement: string, compat: Compat = 'SAME', note?: string): TypeMapping => ({
  mode: 'managed',
  deprecated,
  replacement,
  compat,
  ...(note ? { note } : {}),
});
const data = (deprecated: string, replacement: string, compat: Compat = 'SAME', note?: string): TypeMapping => ({
  mode: 'data',
  deprecated,
  replacement,
  compat,
  ...(note ? { note } : {}),
});

export const TYPE_MAP: readonly TypeMapping[] = [
  managed('kubernetes_namespace', 'kubernetes_namespace_v1'),
  managed('kubernetes_service', 'kubernetes_service_v1'),
  managed('kubernetes_service_account', 'kubernetes_service_account_v1'),
  managed('kubernetes_default_service_account', 'kubernetes_default_service_account_v1'),
  managed('kubernetes_config_map', 'kubernetes_config_map_v1'),
  managed('kubernetes_secret', 'kubernetes_secret_v1'),
  managed('kubernetes_pod', 'kubernetes_pod_v1'),
  managed('kubernetes_endpoints', 'kubernetes_endpoints_v1'),
  managed('kubernetes_limit_range', 'kubernetes_limit_range_v1'),
  managed('kubernetes_persistent_volume', 'kubernetes_persistent_volume_v1'),
  managed('kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1'),
  managed('kubernetes_replication_controller', 'kubernetes_replication_controller_v1'),
  managed('kubernetes_resource_quota', 'kubernetes_resource_quota_v1'),
  managed('kubernetes_api_service', 'kubernetes_api_service_v1'),
  managed('kubernetes_deployment', 'kubernetes_deployment_v1'),
  managed('kubernetes_daemonset', 'kubernetes_daemon_set_v1', 'SAME', 'irregular name: daemonset -> daemon_set_v1'),
  managed('kubernetes_stateful_set', 'kubernetes_stateful_set_v1'),
  managed('kubernetes_job', 'kubernetes_job_v1'),
  managed('kubernetes_role', 'kubernetes_role_v1'),
  managed('kubernetes_role_binding', 'kubernetes_role_binding_v1'),
  managed('kubernetes_cluster_role', 'kubernetes_cluster_role_v1'),
  managed('kubernetes_cluster_role_binding', 'kubernetes_cluster_role_binding_v1'),
  managed('kubernetes_ingress_class', 'kubernetes_ingress_class_v1'),
  managed('kubernetes_network_policy', 'kubernetes_network_policy_v1'),
  managed('kubernetes_priority_class', 'kubernetes_priority_class_v1'),
  managed('kubernetes_storage_class', 'kubernetes_storage_class_v1'),
  managed('kubernetes_cron_job', 'kubernetes_cron_job_v1', 'DIFFERENT', 'batch/v1beta1 vs batch/v1; schema_version 1 vs 0'),
  managed('kubernetes_ingress', 'kubernetes_ingress_v1', 'DIFFERENT', 'v1beta1 vs v1 schema; HCL needs restructuring'),
  managed('kubernetes_horizontal_pod_autoscaler', 'kubernetes_horizontal_pod_autoscaler_v2', 'DIFFERENT', 'autoscaling/v1|v2beta2 vs v2'),
  managed('kubernetes_certificate_signing_request', 'kubernetes_certificate_signing_request_v1', 'DIFFERENT', 'certificates/v1beta1 vs v1'),
  managed('kubernetes_pod_disruption_budget', 'kubernetes_pod_disruption_budget_v1', 'DIFFERENT', 'policy/v1beta1 vs v1'),
  managed('kubernetes_validating_webhook_configuration', 'kubernetes_validating_webhook_configuration_v1', 'DIFFERENT', 'v1beta1 vs v1'),
  managed('kubernetes_mutating_webhook_configuration', 'kubernetes_mutating_webhook_configuration_v1', 'DIFFERENT', 'v1beta1 vs v1'),
  managed('kubernetes_csi_driver', 'kubernetes_csi_driver_v1', 'DIFFERENT', 'storage/v1beta1 vs v1'),
  managed('kubernetes_pod_security_policy', 'kubernetes_pod_security_policy_v1beta1', 'SAME', 'provider 2.x only; removed in 3.0'),
  data('kubernetes_config_map', 'kubernetes_config_map_v1'),
  data('kubernetes_namespace', 'kubernetes_namespace_v1'),
  data('kubernetes_secret', 'kubernetes_secret_v1'),
  data('kubernetes_service', 'kubernetes_service_v1'),
  data('kubernetes_pod', 'kubernetes_pod_v1'),
  data('kubernetes_service_account', 'kubernetes_service_account_v1'),
  data('kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1'),
  data('kubernetes_storage_class', 'kubernetes_storage_class_v1'),
  data('kubernetes_ingress', 'kubernetes_ingress_v1', 'DIFFERENT', 'v1beta1 schema; attribute paths differ'),
];

/** Names that look deprecated but are not (already versioned, or never had a twin). Never rename these. */
export const NEVER_TOUCH: readonly string[] = [
  'kubernetes_env',
  'kubernetes_node_taint',
  'kubernetes_labels',
  'kubernetes_annotations',
  'kubernetes_config_map_v1_data',
  'kubernetes_secret_v1_data',
  'kubernetes_endpoint_slice_v1',
  'kubernetes_token_request_v1',
  'kubernetes_runtime_class_v1',
  'kubernetes_horizontal_pod_autoscaler_v2beta2',
  'kubernetes_manifest',
  'kubernetes_all_namespaces',
  'kubernetes_nodes',
  'kubernetes_server_version',
  'kubernetes_endpoints_v1',
  'kubernetes_persistent_volume_v1',
  'kubernetes_mutating_webhook_configuration_v1',
];

const byKey = new Map(TYPE_MAP.map((m) => [`${m.mode}:${m.deprecated}`, m]));
const replacementKey = new Map(TYPE_MAP.map((m) => [`${m.mode}:${m.replacement}`, m]));

/** The mapping for a deprecated type, or undefined when the type is not deprecated (including NEVER_TOUCH names). */
export function lookupDeprecated(mode: ResourceMode, type: string): TypeMapping | undefined {
  return byKey.get(`${mode}:${type}`);
}

/** The mapping whose replacement is `type` (the reverse direction), or undefined. */
export function lookupReplacement(mode: ResourceMode, type: string): TypeMapping | undefined {
  return replacementKey.get(`${mode}:${type}`);
}

/** True when `a` and `b` are the deprecated and versioned names of one kind (either order). */
export function areTwins(mode: ResourceMode, a: string, b: string): boolean {
  const m = lookupDeprecated(mode, a) ?? lookupReplacement(mode, a);
  return m !== undefined && ((m.deprecated === a && m.replacement === b) || (m.replacement === a && m.deprecated === b));
}

/** Kinds whose loss is a lost volume: PVCs and PVs, under either name. */
const PERSISTENT_TYPES = new Set([
  'kubernetes_persistent_volume_claim',
  'kubernetes_persistent_volume_claim_v1',
  'kubernetes_persistent_volume',
  'kubernetes_persistent_volume_v1',
]);

export function isPersistentType(type: string): boolean {
  return PERSISTENT_TYPES.has(type);
}
