/**
 * A schedule's window beside a fleet started by hand. `wsmigrate schedule trigger` and `unpause`
 * refuse while one runs, but `temporal schedule trigger` and `temporal schedule toggle --unpause` ask
 * nobody (and Temporal runs a trigger of a paused schedule): the window then migrated workspaces
 * behind the hand fleet's canary gate and failure budget (hazard drive, round 1). So the window's
 * fleet asks itself as it starts, before any change. Pure: the id rule and the sentence.
 */

/** A window's workflow id is its schedule action's id with the server's timestamp appended. */
const WINDOW_ID = /-\d{4}-\d\d-\d\dT[\d:.]+Z$/;

/** A fleet a schedule started: its own id, or its parent's (an organization window's template fleet), has the window's timestamp. */
export function isScheduledWindow(workflowId: string, parentId?: string): boolean {
  return WINDOW_ID.test(workflowId) || (parentId !== undefined && WINDOW_ID.test(parentId));
}

export function windowBesideRunsText(fleet: string, template: string, others: readonly { workflowId: string; byHand: boolean }[]): string {
  const ids = others.map((o) => `${o.workflowId}${o.byHand ? ' (started by hand)' : " (another schedule's window)"}`);
  const first = others[0]?.workflowId ?? '';
  return (
    `window ${fleet} of ${template} refused before any change: ${ids.join(', ')} migrates this template now, and a window beside it would migrate workspaces behind its canary gate and failure budget. ` +
    `Its schedule was triggered or unpaused outside wsmigrate (wsmigrate schedule trigger and unpause refuse while a fleet runs). ` +
    `Let that run end (wsmigrate fleet status ${first}), then trigger the window again (wsmigrate schedule trigger <name>); the schedule's next windows run as planned.`
  );
}
