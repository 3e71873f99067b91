/**
 * A build that failed because a Kubernetes object already exists which its state does not hold
 * (the API server's `AlreadyExists`, passed through by the provider): an object left in the cluster
 * outside Terraform's state, which every later start tries to create again. Pure: the job's error
 * and the states read in, what it is and what a person does about it out. wsmigrate never deletes it.
 */
import type { StateResourceView } from './state';

export interface AlreadyExistsError {
  /** As the API server names it: `deployments.apps`, `persistentvolumeclaims`, … (kubectl takes it as is). */
  resource: string;
  name: string;
  /** The address Terraform tried to create, when the error names it (`with ADDRESS,`). */
  address?: string;
}

/** Where the object was last held in a state: its namespace and uid, and which build's state. */
export interface HeldBefore {
  buildNumber: number;
  address: string;
  namespace?: string;
  uid?: string;
}

// `deployments.apps "coder-1" already exists` (real provider) or `deployments "coder-1" already exists` (simulator).
const ALREADY_EXISTS = /\b([a-z][a-z0-9]*(?:\.[a-z0-9][a-z0-9.-]*)?) "([^"]+)" already exists/;
// Terraform's diagnostic: `with kubernetes_deployment_v1.main,` (also `module.x.…` and `[0]`/`["k"]`).
const WITH_ADDRESS = /\bwith ((?:module\.[\w-]+(?:\[[^\]]+\])?\.)*[a-z0-9_]+\.[\w-]+(?:\[[^\]]+\])?)/;

/** The object a build's job error says already exists, or undefined for any other error. */
export function parseAlreadyExists(jobError: string): AlreadyExistsError | undefined {
  const m = ALREADY_EXISTS.exec(jobError);
  if (!m) return undefined;
  const address = WITH_ADDRESS.exec(jobError)?.[1];
  return { resource: m[1], name: m[2], ...(address ? { address } : {}) };
}

/** Volumes hold data: never advise deleting one. */
export function isPersistentResource(resource: string): boolean {
  return /^persistentvolume(claim)?s?\b/.test(resource);
}

function metadataOf(attributes: Record<string, unknown> | undefined): { name?: unknown; namespace?: unknown; uid?: unknown } | undefined {
  const m = attributes?.metadata;
  return Array.isArray(m) ? (m[0] as { name?: unknown; namespace?: unknown; uid?: unknown } | undefined) : undefined;
}

function addressOf(r: StateResourceView, indexKey: number | string | undefined): string {
  const index = indexKey === undefined ? '' : typeof indexKey === 'number' ? `[${indexKey}]` : `["${indexKey}"]`;
  return `${r.module ? `${r.module}.` : ''}${r.type}.${r.name}${index}`;
}

/** The Kubernetes object named `name` in one state (any kubernetes_* type), with its namespace and uid. */
export function findNamedObject(resources: readonly StateResourceView[], name: string): { address: string; namespace?: string; uid?: string } | undefined {
  for (const r of resources) {
    if (r.mode !== 'managed' || !r.type.startsWith('kubernetes_')) continue;
    for (const i of r.instances) {
      const meta = metadataOf(i.attributes);
      if (meta?.name !== name) continue;
      return {
        address: addressOf(r, i.index_key),
        ...(typeof meta.namespace === 'string' && meta.namespace ? { namespace: meta.namespace } : {}),
        ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
      };
    }
  }
  return undefined;
}

/**
 * What the failure says on top of Terraform's words: which object, where, that the state the build
 * ran on does not hold it, and the two ways out (delete it, or import it), then run again.
 */
export function outsideStateAdvice(e: AlreadyExistsError, held: HeldBefore | undefined, opts: { buildNumber: number; rerun: string }): string {
  const ns = held?.namespace;
  const where = ns ? `in namespace '${ns}'` : `(its namespace was in none of the recent states: \`kubectl get ${e.resource} -A --field-selector metadata.name=${e.name}\` finds it)`;
  const nsFlag = ns ? ` -n ${ns}` : ' -n <namespace>';
  const address = e.address ?? held?.address;
  const importId = `${ns ?? '<namespace>'}/${e.name}`;
  const history = held ? `; the state of build #${held.buildNumber} held it${held.uid ? ` (uid ${held.uid})` : ''} at ${held.address}, a later build's state dropped it (a compensation that restored a state taken before it was created leaves exactly this)` : '';
  const adopt = address
    ? `keep it and bring it into the state: \`terraform import '${address}' ${importId}\` on the workspace's state (\`coder state pull\`, import, \`coder state push\`)`
    : `keep it and import it into the state at the address the template gives it (ID ${importId})`;
  const head =
    `Kubernetes object ${e.resource}/${e.name} ${where} already exists, and the state build #${opts.buildNumber} ran on does not hold it${address ? ` (nothing at ${address})` : ''}: ` +
    `it is left in the cluster outside Terraform's state${history}. Terraform will not adopt it, so every start fails the same way until it is dealt with; wsmigrate deletes nothing.`;
  const ways = isPersistentResource(e.resource)
    ? `Do not delete it: a volume holds data. ${adopt[0].toUpperCase()}${adopt.slice(1)}.`
    : `Either delete it, once nothing on it is needed (it holds no data of its own; the home volume is a claim and stays): \`kubectl delete ${e.resource} ${e.name}${nsFlag}\`; or ${adopt}.`;
  // No full stop at the end: callers go on after it.
  return `${head} ${ways} Then ${opts.rerun}`;
}
