/** Terraform state v4, as the simulated provisioner reads and writes it (unknown fields are carried along). */

export interface StateInstance {
  index_key?: number | string;
  status?: string;
  deposed?: string;
  schema_version: number;
  attributes: Record<string, unknown>;
  sensitive_attributes: unknown[];
  private?: string;
  dependencies?: string[];
  [extra: string]: unknown;
}

export interface StateResource {
  module?: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  provider: string;
  instances: StateInstance[];
  [extra: string]: unknown;
}

export interface TerraformStateV4 {
  version: 4;
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, unknown>;
  resources: StateResource[];
  check_results: unknown[] | null;
  [extra: string]: unknown;
}

/** What the simulated provisioner writes into terraform_version. */
export const SIM_TERRAFORM_VERSION = '1.11.4';

export function emptyState(lineage: string): TerraformStateV4 {
  return { version: 4, terraform_version: SIM_TERRAFORM_VERSION, serial: 0, lineage, outputs: {}, resources: [], check_results: null };
}

/** Parses stored state bytes; empty bytes are an empty state, as for a workspace's first build. */
export function parseState(bytes: Buffer, lineageIfEmpty: string): TerraformStateV4 {
  const text = bytes.toString('utf8').trim();
  if (text === '') return emptyState(lineageIfEmpty);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`Failed to load state: the stored state is not valid JSON (${(err as Error).message}).`);
  }
  const state = parsed as Partial<TerraformStateV4>;
  if (state.version !== 4) throw new Error(`Failed to load state: unsupported state version ${String(state.version)} (only version 4 is supported).`);
  if (!Array.isArray(state.resources)) throw new Error('Failed to load state: "resources" is not an array.');
  return state as TerraformStateV4;
}

/** The bytes Terraform writes: two-space indented JSON and a final newline. */
export function serializeState(state: TerraformStateV4): Buffer {
  return Buffer.from(`${JSON.stringify(state, null, 2)}\n`, 'utf8');
}

export function providerOf(type: string): string {
  const prefix = type.split('_')[0] ?? type;
  const namespace = prefix === 'coder' ? 'coder' : 'hashicorp';
  return `provider["registry.terraform.io/${namespace}/${prefix}"]`;
}

export function instanceAddress(resource: Pick<StateResource, 'mode' | 'type' | 'name'>, indexKey?: number | string): string {
  const base = `${resource.mode === 'data' ? 'data.' : ''}${resource.type}.${resource.name}`;
  if (indexKey === undefined) return base;
  return typeof indexKey === 'number' ? `${base}[${indexKey}]` : `${base}[${JSON.stringify(indexKey)}]`;
}
