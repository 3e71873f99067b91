/**
 * A protected object a workspace lost, and its words for humans. Apart from the health rules that
 * find losses (workspace-health), because the workflows import only this: everything a workflow
 * imports is evaluated again for each new workflow, and the health rules bring the state parser.
 */
export type LossKind = 'forgotten' | 'orphaned' | 'destroyed';

export interface ProtectedLoss {
  /** The address as the last good state wrote it. */
  address: string;
  key: string;
  /**
   * forgotten: the entry left the state, the object was not deleted. orphaned: the state holds another
   * object (new uid) at the address and the build's log shows no delete: the old object is still in
   * the cluster, unmanaged (a claim named by `generate_name` is created anew beside it). destroyed:
   * the log shows the delete, or a new uid where the log could not be read.
   */
  kind: LossKind;
  /** The build that lost it. */
  build: { id: string; number: number; at: string };
  /** The newest successful build whose state still held it, and what it held. */
  heldIn: { id: string; number: number };
  before: { id?: string; uid?: string };
  /** For a new uid: the object the state holds now. */
  after?: { id?: string; uid?: string };
}

export function describeLoss(l: ProtectedLoss): string {
  const what = l.kind === 'forgotten'
    ? `forgotten by build #${l.build.number} (its state has no entry; the object was not deleted)`
    : l.kind === 'orphaned'
      ? `replaced in the state by build #${l.build.number} (a new object, uid ${l.after?.uid ?? '?'}, took its address and the log shows no delete: unless it was deleted outside Terraform, uid ${l.before.uid ?? '?'} is still in the cluster, unmanaged)`
      : l.after
      ? `destroyed by build #${l.build.number} (uid ${l.before.uid ?? '?'} is now ${l.after.uid ?? '?'})`
      : `destroyed by build #${l.build.number} (its log shows the delete)`;
  return `${l.address} ${what} at ${l.build.at}; last held by build #${l.heldIn.number}`;
}
