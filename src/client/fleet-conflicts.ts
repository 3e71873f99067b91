import type { Client } from '@temporalio/client';
import { fleetWorkflowId } from '../domain/fleet-input';
import { RefusedError } from './refused-error';

/**
 * Two fleets of one template at once: a schedule's window (its own id, with a timestamp) runs beside
 * a fleet started by hand and migrates workspaces behind that fleet's canary gate and failure budget,
 * while the gate still asks "continue with the rest?" over counts that are no longer true (seen on
 * `wsmigrate sim`: a window every minute migrated every workspace while the hand-started fleet
 * waited at `fleet-continue`). A schedule's own windows never overlap (overlap SKIP); these checks
 * keep a hand-started fleet and a schedule of the same template from overlapping.
 */

/** Running `migrateFleet` runs of this template (the hand-started one and any window's), by workflow id. */
export async function runningFleetsOf(client: Client, organization: string, template: string): Promise<string[]> {
  const base = fleetWorkflowId(organization, template);
  const ids = new Set<string>();
  try {
    const d = await client.workflow.getHandle(base).describe();
    if (d.status.name === 'RUNNING') ids.add(base);
  } catch {
    // no fleet with the plain id
  }
  try {
    const query = `WorkflowType = 'migrateFleet' AND ExecutionStatus = 'Running' AND WsmigrateTemplate = '${template.replace(/'/g, '')}'`;
    for await (const wf of client.workflow.list({ query, pageSize: 100 })) {
      // A window's id is the plain one with the server's timestamp appended.
      if (wf.workflowId === base || wf.workflowId.startsWith(`${base}-20`)) ids.add(wf.workflowId);
    }
  } catch {
    // visibility is a convenience; the plain id was read directly
  }
  return [...ids].sort();
}

/** Unpaused wsmigrate schedules whose windows start a fleet of this template. */
export async function activeSchedulesOf(client: Client, organization: string, template: string): Promise<{ scheduleId: string; next?: string }[]> {
  const out: { scheduleId: string; next?: string }[] = [];
  for await (const s of client.schedule.list()) {
    if (!s.scheduleId.startsWith('wsmigrate-')) continue;
    try {
      // The list is visibility's (it lags a pause or unpause by a moment); describe reads the schedule itself.
      const d = await client.schedule.getHandle(s.scheduleId).describe();
      if (d.state.paused) continue;
      if (d.action.type !== 'startWorkflow' || d.action.workflowType !== 'migrateFleet') continue;
      const input = d.action.args?.[0] as { organization?: string; template?: string } | undefined;
      if ((input?.organization ?? 'coder') !== organization || input?.template !== template) continue;
      out.push({ scheduleId: s.scheduleId, ...(d.info.nextActionTimes[0] ? { next: d.info.nextActionTimes[0].toISOString() } : {}) });
    } catch {
      // deleted meanwhile
    }
  }
  return out;
}

/** `fleet start` by hand: refused while a schedule of the template is active or one of its windows runs. */
export async function refuseFleetBesideSchedules(client: Client, organization: string, template: string): Promise<void> {
  const schedules = await activeSchedulesOf(client, organization, template);
  const windows = (await runningFleetsOf(client, organization, template)).filter((id) => id !== fleetWorkflowId(organization, template));
  if (schedules.length === 0 && windows.length === 0) return;
  const names = schedules.map((s) => `${s.scheduleId}${s.next ? ` (next window ${s.next})` : ''}`);
  throw new RefusedError(
    `fleet of ${organization}/${template} not started: ` +
      [names.length ? `schedule ${names.join(', ')} starts a fleet of this template at each window` : '', windows.length ? `a window's fleet is running (${windows.join(', ')})` : '']
        .filter(Boolean)
        .join('; ') +
      `. Two fleets of one template would migrate workspaces behind each other's canary gate and failure budget. ` +
      `Pause the schedule first (${schedules.map((s) => `wsmigrate schedule pause ${s.scheduleId.replace(/^wsmigrate-/, '')}`).join(', ') || 'wsmigrate schedule pause <name>'})` +
      `${windows.length ? ` and let the window's fleet end (wsmigrate fleet status ${windows[0]})` : ''}, or let the schedule do the work`,
  );
}

/**
 * A schedule of a template that would take windows now: refused while a fleet of it runs. A new
 * schedule counts every running fleet of the template; an existing one being unpaused or triggered
 * only the hand-started one (its own windows never overlap: overlap SKIP).
 */
export async function refuseScheduleBesideFleet(client: Client, organization: string, template: string, scheduleId: string, opts: { ownWindows: boolean }): Promise<void> {
  const base = fleetWorkflowId(organization, template);
  const running = (await runningFleetsOf(client, organization, template)).filter((id) => !opts.ownWindows || id === base);
  if (running.length === 0) return;
  throw new RefusedError(
    `${scheduleId} would start a fleet of ${organization}/${template} while ${running.join(', ')} runs: its windows would migrate workspaces behind that fleet's canary gate and failure budget. ` +
      `Let that fleet end (wsmigrate fleet status ${running[0]}) or cancel it (wsmigrate fleet cancel ${running[0]}) first` +
      (opts.ownWindows ? '' : ', or create the schedule with --paused and unpause it once that fleet has ended'),
  );
}
