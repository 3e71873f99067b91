/**
 * A build that succeeds, but the state Coder keeps for it (what `GET /workspacebuilds/{id}/state`
 * answers, and what the next build without a state of its own runs on) is other bytes than its
 * provisioner wrote: `previous` keeps the state of the build before it (a lost write, as when
 * provisionerd's CompleteJob and another write race: coderd/provisionerdserver/provisionerdserver.go),
 * `empty` keeps a state with no resources. The cluster is untouched. For tests of the checks that
 * must read a build's state back before they call it migrated or restored.
 */
import { takeBuildScopedFault } from './build-fault-match';

export interface WrongStoredStateFault {
  how: 'previous' | 'empty';
  workspaceId?: string;
  transition?: 'start' | 'stop';
  /** How many matching builds are kept wrong; unlimited when absent. */
  times?: number;
}

/** True when the fault applies to this build; counts it down. */
export function takeWrongStoredState(fault: WrongStoredStateFault | undefined, build: { workspaceId: string; transition: string }): fault is WrongStoredStateFault {
  return takeBuildScopedFault(fault, build);
}

/** The bytes Coder keeps instead of `written`: the previous build's, or the same state emptied of resources (serial and lineage kept). */
export function wrongStoredState(fault: WrongStoredStateFault, written: Buffer, previous: Buffer | undefined): Buffer {
  if (fault.how === 'previous') return Buffer.from(previous ?? Buffer.alloc(0));
  const json = JSON.parse(written.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(`${JSON.stringify({ ...json, resources: [] }, null, 2)}\n`);
}

/**
 * The state Coder keeps for a build once its job ends (coderd/provisionerdserver/provisionerdserver.go):
 * CompleteJob writes the job's state whatever it is; FailJob only when the job sent one
 * (`jobType.WorkspaceBuild.State != nil`). After a failed apply the provisioner sends its state file's
 * bytes, a read error ignored (provisioner/terraform/provision.go), and protobuf carries empty bytes as
 * nil: a failed job whose state file is empty or gone leaves the build with the state it was created with.
 */
export function stateStoredAtJobEnd(created: Buffer, job: { state: Buffer; error?: string }): Buffer {
  return job.error !== undefined && job.state.length === 0 ? created : job.state;
}
