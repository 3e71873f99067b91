import { isCoderApiError } from '../adapters/coder';
import { capacityOf, paceFleet, type PacingDecision, type ProvisionerCapacity } from '../domain/provisioner-pacing';
import { coderStep } from './failures';
import type { ActivityDeps, CoderApi } from './ports';

export interface ReadProvisionerCapacityInput {
  organization: string;
  template: string;
  share: number;
  concurrency: number;
}

export type ProvisionerCapacityReading =
  | { known: true; capacity: ProvisionerCapacity; decision: PacingDecision }
  /** The daemons API was refused: the fleet falls back to its concurrency. */
  | { known: false; reason: string };

/**
 * One look at Coder's provisioners: the online daemons that can take the template's jobs (Coder's
 * default organization tags; templates with their own tags are UNCONFIRMED here), and the active
 * jobs split into ours (started by this token's user) and the users'. A 404/403 means the token may
 * not read provisioner jobs (coderd/provisionerdaemons.go: owners and template admins only) or the
 * release predates the route; anything else (5xx, network) is retried like any Coder call.
 */
export function makeReadProvisionerCapacity({ coder, metrics }: ActivityDeps) {
  return async function readProvisionerCapacity(input: ReadProvisionerCapacityInput): Promise<ProvisionerCapacityReading> {
    const subject = `organization ${input.organization}`;
    let daemons;
    try {
      daemons = await coder.provisionerDaemons(input.organization);
    } catch (err) {
      if (isCoderApiError(err, 'not-found') || isCoderApiError(err, 'forbidden') || (isCoderApiError(err, 'bad-request') && err.status === 405)) {
        return {
          known: false,
          reason: `Coder answered ${err.status} to GET /organizations/${input.organization}/provisionerdaemons (a token without read on provisioner jobs, which only owners and template admins have, or a Coder before the route)`,
        };
      }
      return coderStep('provisioner capacity', subject, () => Promise.reject(err));
    }
    const [me, jobs] = await Promise.all([
      coderStep('provisioner capacity', subject, () => userIdOf(coder)),
      coderStep('provisioner capacity', subject, () => coder.provisionerJobs(input.organization, ['pending', 'running'])),
    ]);
    const capacity = capacityOf(daemons, jobs, me);
    const decision = paceFleet(capacity, input.share, input.concurrency);
    metrics?.fleetPacing?.(input.template, decision.width, decision.hold !== undefined);
    return { known: true, capacity, decision };
  };
}

const userIds = new WeakMap<CoderApi, Promise<string>>();

function userIdOf(coder: CoderApi): Promise<string> {
  let id = userIds.get(coder);
  if (!id) {
    id = coder.currentUser().then((u) => u.id);
    id.catch(() => userIds.delete(coder));
    userIds.set(coder, id);
  }
  return id;
}
