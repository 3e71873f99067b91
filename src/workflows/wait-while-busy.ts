import { log, sleep } from '@temporalio/workflow';

/** How often a run reads a workspace again while someone else's build runs on it, and for how long at most (5 minutes). */
const BUSY_POLL = '5s';
const BUSY_READS = 60;

/**
 * A workspace someone is building right now (its owner's Start, Coder's autostart) is not a failed
 * migration: wait for that build to end and read the workspace again, bounded, instead of failing
 * the run (and spending a fleet's failure budget). Still busy after that, the caller fails it as busy.
 */
export async function waitWhileBusy<T extends { health: { health: string; reason: string } }>(subject: string, first: T, readAgain: () => Promise<T>): Promise<T> {
  let now = first;
  for (let i = 0; i < BUSY_READS && now.health.health === 'busy'; i++) {
    if (i === 0) log.info('waiting for a build of someone else to end', { subject, reason: now.health.reason });
    await sleep(BUSY_POLL);
    now = await readAgain();
  }
  return now;
}
