import { capacityOf, withDaemonsNow, type FleetPacingStatus, type ProvisionerCapacity } from '../domain/provisioner-pacing';

/** Coder, when the shell has CODER_URL and a token: lets `fleet status` read the provisioner daemons now. */
export interface DaemonsCoder {
  provisionerDaemons(org: string): Promise<readonly Parameters<typeof capacityOf>[0][number][]>;
  provisionerJobs(org: string, statuses: readonly string[]): Promise<readonly Parameters<typeof capacityOf>[1][number][]>;
  currentUser(): Promise<{ id: string }>;
}

/** The organization's daemons as the fleet counts them, read now; undefined when Coder would not say (a status read never fails on it). */
export async function daemonsNow(coder: DaemonsCoder, organization: string): Promise<ProvisionerCapacity | undefined> {
  try {
    const [daemons, jobs, me] = await Promise.all([coder.provisionerDaemons(organization), coder.provisionerJobs(organization, ['pending', 'running']), coder.currentUser()]);
    return capacityOf(daemons, jobs, me.id);
  } catch {
    return undefined;
  }
}

/**
 * A running fleet's pacing as `fleet status` shows it: the fleet's own reading, or one taken now when
 * that finds no daemon online (the fleet reads them only when it wants to start a migration, so its
 * reading can say "0/1 busy" while every daemon is gone and its migrations wait in Coder's queue).
 */
export async function pacingNow(coder: DaemonsCoder | undefined, organization: string, pacing: FleetPacingStatus, now: () => Date = () => new Date()): Promise<FleetPacingStatus> {
  if (!coder || pacing.mode !== 'paced') return pacing;
  return withDaemonsNow(pacing, await daemonsNow(coder, organization), now().toISOString());
}
