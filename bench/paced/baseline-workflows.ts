// The floor Temporal itself costs: per workspace one child workflow that makes the same number of
// no-op activity calls (and local ones) as a migration does, started by a parent with a sliding window.
import { proxyActivities, proxyLocalActivities, startChild, condition } from '@temporalio/workflow';

const acts = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '1m' });
const local = proxyLocalActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '1m' });

export async function baselineWorkspace(activities: number, locals: number): Promise<void> {
  for (let i = 0; i < activities; i++) await acts.noop();
  for (let i = 0; i < locals; i++) await local.noop();
}

export async function baselineFleet(n: number, width: number, activities: number, locals: number): Promise<void> {
  let running = 0;
  const ends: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    await condition(() => running < width);
    running++;
    const child = await startChild(baselineWorkspace, { workflowId: `baseline-${i}-${Date.now()}`, args: [activities, locals] });
    ends.push(child.result().finally(() => running--));
  }
  await Promise.all(ends);
}
