import { formatInstanceAddress, parseStateV4, StateFormatError, type StateResourceView } from './state';
import { lookupDeprecated, NEVER_TOUCH } from './type-map';

/**
 * Strategy "import": the manual runbook's steps 7 and 9 for each instance of a deprecated type,
 * `terraform state rm OLD` then `terraform import NEW ID`. Needed for DIFFERENT pairs, which a
 * rename would corrupt; it needs the provider and a cluster, and the imported object loses
 * `dependencies`, timeouts and identity, so SAME pairs use the rename unless asked (`which: 'all'`).
 */

export interface ImportStep {
  oldAddress: string;
  newAddress: string;
  importId: string;
  /** Arguments for execa, Terraform binary excluded. */
  stateRmArgs: string[];
  importArgs: string[];
  /** The two commands as a POSIX shell would take them, for people and runbooks. */
  shell: string[];
}

export interface ImportPlanOptions {
  /** 'different' (default): only DIFFERENT pairs; 'all': every deprecated managed type. */
  which?: 'different' | 'all';
  /** The state file the commands name with -state=; default terraform.tfstate. */
  stateFile?: string;
  /** Template variables passed as -var NAME=VALUE (the runbook passes use_kubeconfig and namespace). */
  vars?: Readonly<Record<string, string>>;
}

/** The state or an instance in it cannot be planned; names the address and what to do. */
export class ImportPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportPlanError';
  }
}

export const DEFAULT_STATE_FILE = 'terraform.tfstate';

export function planImports(stateText: string, opts: ImportPlanOptions = {}): ImportStep[] {
  const which = opts.which ?? 'different';
  const stateFile = opts.stateFile ?? DEFAULT_STATE_FILE;
  const vars = opts.vars ?? {};
  let resources: readonly StateResourceView[];
  try {
    resources = parseStateV4(stateText).resources;
  } catch (e) {
    if (e instanceof StateFormatError) throw new ImportPlanError(`Cannot plan imports: ${e.message}`);
    throw e;
  }

  const steps: ImportStep[] = [];
  const missingIds: string[] = [];
  for (const resource of resources) {
    // Data sources are read again on every plan; there is nothing to import.
    if (resource.mode !== 'managed' || NEVER_TOUCH.includes(resource.type)) continue;
    const mapping = lookupDeprecated('managed', resource.type);
    if (!mapping || (which === 'different' && mapping.compat !== 'DIFFERENT')) continue;
    const renamed = { ...resource, type: mapping.replacement };
    const seen = new Set<number | string | undefined>();
    for (const instance of resource.instances) {
      // Deposed objects are forgotten with their instance by `state rm` and cannot be imported.
      if (instance.deposed !== undefined || seen.has(instance.index_key)) continue;
      seen.add(instance.index_key);
      const oldAddress = formatInstanceAddress(resource, instance.index_key);
      const newAddress = formatInstanceAddress(renamed, instance.index_key);
      const id = instance.attributes?.id;
      if (typeof id !== 'string' || id === '') {
        missingIds.push(oldAddress);
        continue;
      }
      const rm = stateRmArgs(stateFile, [oldAddress]);
      const imp = importArgs(stateFile, newAddress, id, vars);
      steps.push({ oldAddress, newAddress, importId: id, stateRmArgs: rm, importArgs: imp, shell: [shellLine(rm), shellLine(imp)] });
    }
  }
  if (missingIds.length > 0) {
    throw new ImportPlanError(
      `Cannot plan imports: ${missingIds.join(', ')} ${missingIds.length === 1 ? 'has' : 'have'} no attributes.id in the state, ` +
        'so the import ID is unknown. Look the object up in the cluster (namespace/name for namespaced kinds, name for ' +
        'cluster-scoped ones) and import it by hand, or refresh the state first.',
    );
  }
  return steps;
}

/** `terraform state rm -state=FILE ADDR...` arguments; extra flags go before the addresses. */
export function stateRmArgs(stateFile: string, addresses: readonly string[], extraFlags: readonly string[] = []): string[] {
  return ['state', 'rm', `-state=${stateFile}`, ...extraFlags, ...addresses];
}

/**
 * `terraform import -state=FILE -var K=V... ADDR ID` arguments. -input=false: a missing variable
 * must fail the step, not wait forever for someone to type it.
 */
export function importArgs(
  stateFile: string,
  address: string,
  id: string,
  vars: Readonly<Record<string, string>> = {},
  extraFlags: readonly string[] = [],
): string[] {
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ['-var', `${name}=${value}`]);
  return ['import', '-input=false', `-state=${stateFile}`, ...varArgs, ...extraFlags, address, id];
}

/** `terraform ARGS` quoted for a POSIX shell: brackets and quotes in addresses would be globbed or eaten. */
export function shellLine(args: readonly string[]): string {
  return ['terraform', ...args].map(shellQuote).join(' ');
}

export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_\-./=:@,+%]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
