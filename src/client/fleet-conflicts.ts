import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { coverageOf, coverageText, overlaps, type Coverage } from '../domain/fleet-coverage';
import { fleetWorkflowId } from '../domain/fleet-input';
import { organizationWorkflowId } from '../domain/organization-input';
import type { OtherRun, OtherRunsQuery } from '../ports/other-runs';
import { RefusedError } from './refused-error';

/**
 * Two fleets of one template at once: a schedule's window (its own id, with a timestamp) runs beside
 * a fleet started by hand and migrates workspaces behind that fleet's canary gate and failure budget,
 * while the gate still asks "continue with the rest?" over counts that are no longer true (seen on
 * `wsmigrate sim`: a window every minute migrated every workspace while the hand-started fleet
 * waited at `fleet-continue`). A schedule's own windows never overlap (overlap SKIP); these checks
 * keep runs and schedules that share a template (one template's, an organization's, by hand or by
 * window) from overlapping.
 */

/** A fleet or an organization run that runs now, and the templates it migrates. */
interface RunningRun {
  workflowId: string;
  coverage: Coverage;
  /** Started by a person, not by a schedule's window (an organization run's fleet counts as its parent). */
  byHand: boolean;
  parentId?: string;
}

/** A schedule that would take windows now. */
interface ActiveSchedule {
  scheduleId: string;
  coverage: Coverage;
  workflowType: string;
  next?: string;
}

/** A window's workflow id is its schedule action's id with the server's timestamp appended. */
const WINDOW_ID = /-\d{4}-\d\d-\d\dT[\d:.]+Z$/;

/** The run's input, read from its first event (describe and the list do not carry it). */
export async function startInput(client: Client, workflowId: string, runId: string): Promise<unknown> {
  const page = await client.workflowService.getWorkflowExecutionHistory({ namespace: client.options.namespace, execution: { workflowId, runId }, maximumPageSize: 1 });
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, started?.input?.payloads);
}

/** Where the input cannot be read: what the id says (an organization run then counts for every template). */
function coverageFromId(workflowId: string, taskQueue: string): Coverage | undefined {
  const fleet = /^wsmigrate-fleet\/([^/]+)\/([^/]+?)(?:\/canary)?(?:-\d{4}-\d\d-\d\dT[\d:.]+Z)?$/.exec(workflowId);
  if (fleet) return { organization: fleet[1], templates: [fleet[2]], taskQueue };
  const org = /^wsmigrate-org\/([^/]+?)(?:-\d{4}-\d\d-\d\dT[\d:.]+Z)?$/.exec(workflowId);
  return org ? { organization: org[1], templates: 'all', taskQueue } : undefined;
}

/**
 * Running fleets and organization runs. Visibility lags a start by a moment, so the ids a person
 * starts by hand (`direct`) are also described one by one. `strict` (the lock keeper, which must not
 * take "could not ask" for "none runs"): any error but not-found is thrown.
 */
async function runningRuns(client: Client, direct: readonly string[], strict = false): Promise<RunningRun[]> {
  const seen = new Map<string, Omit<WorkflowExecutionInfo, 'raw'>>();
  for (const id of direct) {
    try {
      const d = await client.workflow.getHandle(id).describe();
      if (d.status.name === 'RUNNING') seen.set(id, d);
    } catch (err) {
      // not started, or gone
      if (strict && !(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  try {
    const query = "(WorkflowType = 'migrateFleet' OR WorkflowType = 'migrateOrganization') AND ExecutionStatus = 'Running'";
    for await (const wf of client.workflow.list({ query, pageSize: 100 })) if (!seen.has(wf.workflowId)) seen.set(wf.workflowId, wf);
  } catch (err) {
    // visibility is a convenience; the plain ids were read directly
    if (strict) throw err;
  }
  const runs: RunningRun[] = [];
  for (const r of seen.values()) {
    const input = await startInput(client, r.workflowId, r.runId).catch(() => undefined);
    const coverage = coverageOf(r.type, input, r.taskQueue) ?? coverageFromId(r.workflowId, r.taskQueue);
    if (!coverage) continue;
    const parentId = r.parentExecution?.workflowId;
    runs.push({ workflowId: r.workflowId, coverage, byHand: !WINDOW_ID.test(parentId ?? r.workflowId), ...(parentId ? { parentId } : {}) });
  }
  return runs.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
}

/** The ids a person would start for `claim`: its templates' fleets and the organization's run. */
function handStartedIds(claim: Coverage): string[] {
  const fleets = claim.templates === 'all' ? [] : claim.templates.map((t) => fleetWorkflowId(claim.organization, t));
  return [...fleets, organizationWorkflowId(claim.organization)];
}

/** Unpaused wsmigrate schedules whose windows start a fleet or an organization run sharing a template with `claim`. */
async function activeSchedulesCovering(client: Client, claim: Coverage, except?: string): Promise<ActiveSchedule[]> {
  const out: ActiveSchedule[] = [];
  for await (const s of client.schedule.list()) {
    if (!s.scheduleId.startsWith('wsmigrate-') || s.scheduleId === except) continue;
    try {
      // The list is visibility's (it lags a pause or unpause by a moment); describe reads the schedule itself.
      const d = await client.schedule.getHandle(s.scheduleId).describe();
      if (d.state.paused || d.action.type !== 'startWorkflow') continue;
      const coverage = coverageOf(d.action.workflowType, d.action.args?.[0], d.action.taskQueue);
      if (!coverage || !overlaps(coverage, claim)) continue;
      out.push({ scheduleId: s.scheduleId, coverage, workflowType: d.action.workflowType, ...(d.info.nextActionTimes[0] ? { next: d.info.nextActionTimes[0].toISOString() } : {}) });
    } catch {
      // deleted meanwhile
    }
  }
  return out;
}

/**
 * The running fleets and organization runs that migrate `template` (the lock keeper's question);
 * throws when Temporal cannot be asked.
 */
export async function runningRunsOnTemplate(client: Client, organization: string, template: string): Promise<string[]> {
  const claim: Coverage = { organization, templates: [template] };
  return (await runningRuns(client, handStartedIds(claim), true)).filter((r) => overlaps(r.coverage, claim)).map((r) => r.workflowId);
}

/**
 * What a schedule's window asks as its fleet starts (the worker's OtherRuns): the running runs that
 * migrate its template, but itself, its parent (an organization window) and their fleets.
 */
export async function runsBesideWindow(client: Client, q: OtherRunsQuery): Promise<OtherRun[]> {
  const claim: Coverage = { organization: q.organization, templates: [q.template], taskQueue: q.taskQueue };
  const mine = new Set([q.workflowId, ...(q.parentId ? [q.parentId] : [])]);
  const others = (await runningRuns(client, handStartedIds(claim))).filter((r) => !mine.has(r.workflowId) && !(r.parentId !== undefined && mine.has(r.parentId)) && overlaps(r.coverage, claim));
  const byId = new Map<string, OtherRun>();
  for (const r of others) byId.set(r.parentId ?? r.workflowId, { workflowId: r.parentId ?? r.workflowId, byHand: r.byHand });
  return [...byId.values()];
}

/** Running runs sharing a template with `claim`, but `selfId` (a start with its own id says "already running") and its own fleets. */
async function runsCovering(client: Client, claim: Coverage, selfId?: string): Promise<RunningRun[]> {
  return (await runningRuns(client, handStartedIds(claim))).filter((r) => (selfId === undefined || (r.workflowId !== selfId && r.parentId !== selfId)) && overlaps(r.coverage, claim));
}

/** "a fleet of coder/k8s-dev", "an organization run of every template of coder"; "a fleet of this template" when it is `claim`'s one template. */
function whatItStarts(workflowType: string, c: Coverage, claim?: Coverage): string {
  const one = (x: Coverage) => (x.templates !== 'all' && x.templates.length === 1 ? x.templates[0] : undefined);
  const same = claim !== undefined && one(c) !== undefined && one(c) === one(claim);
  const which = same ? 'this template' : coverageText(c);
  return workflowType === 'migrateOrganization' ? `an organization run of ${which}` : `a fleet of ${which}`;
}

/**
 * `fleet start` by hand (one template, or an organization's): refused while an active schedule or a
 * running run (a window's, or another started by hand) shares one of its templates.
 */
export async function refuseRunBesideOthers(client: Client, claim: Coverage, start: { workflowId: string; noun: 'fleet' | 'organization run' }): Promise<void> {
  const schedules = await activeSchedulesCovering(client, claim);
  const running = await runsCovering(client, claim, start.workflowId);
  if (schedules.length === 0 && running.length === 0) return;
  const windows = running.filter((r) => !r.byHand).map((r) => r.workflowId);
  const byHand = running.filter((r) => r.byHand).map((r) => r.workflowId);
  const first = running[0]?.parentId ?? running[0]?.workflowId;
  const todo = [
    schedules.length ? `pause the schedule first (${schedules.map((s) => `wsmigrate schedule pause ${s.scheduleId.replace(/^wsmigrate-/, '')}`).join(', ')})` : '',
    first ? `let ${windows.length && !byHand.length ? "the window's fleet" : 'it'} end (wsmigrate fleet status ${first})` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  throw new RefusedError(
    `${start.noun} of ${coverageText(claim)} not started: ` +
      [
        ...schedules.map((s) => `schedule ${s.scheduleId}${s.next ? ` (next window ${s.next})` : ''} starts ${whatItStarts(s.workflowType, s.coverage, claim)} at each window`),
        windows.length ? `a window's fleet is running (${windows.join(', ')})` : '',
        byHand.length ? `${byHand.join(', ')} runs (started by hand)` : '',
      ]
        .filter(Boolean)
        .join('; ') +
      `. Two fleets of one template would migrate workspaces behind each other's canary gate and failure budget. ` +
      `${todo[0].toUpperCase()}${todo.slice(1)}${schedules.length ? ', or let the schedule do the work' : ''}`,
  );
}

/**
 * A schedule that would take windows now (created unpaused, unpaused, triggered): refused while a
 * run sharing a template runs, and (created or unpaused) while another active schedule shares one.
 * An existing schedule counts only runs started by hand: its own windows never overlap (overlap SKIP).
 */
export async function refuseScheduleBesideRuns(
  client: Client,
  claim: Coverage & { workflowType: string },
  scheduleId: string,
  opts: { ownWindows: boolean; otherSchedules: boolean },
): Promise<void> {
  const running = (await runsCovering(client, claim)).filter((r) => !opts.ownWindows || r.byHand);
  const others = opts.otherSchedules ? await activeSchedulesCovering(client, claim, scheduleId) : [];
  if (running.length === 0 && others.length === 0) return;
  const starts = whatItStarts(claim.workflowType, claim);
  if (running.length > 0) {
    const ids = [...new Set(running.map((r) => r.parentId ?? r.workflowId))];
    throw new RefusedError(
      `${scheduleId} would start ${starts} while ${ids.join(', ')} runs: its windows would migrate workspaces behind that fleet's canary gate and failure budget. ` +
        `Let that fleet end (wsmigrate fleet status ${ids[0]}) or cancel it (wsmigrate fleet cancel ${ids[0]}) first` +
        (opts.ownWindows ? '' : ', or create the schedule with --paused and unpause it once that fleet has ended'),
    );
  }
  throw new RefusedError(
    `${scheduleId} would start ${starts} beside ${others.map((s) => `schedule ${s.scheduleId} (${whatItStarts(s.workflowType, s.coverage, claim)})`).join(', ')}: ` +
      `each schedule's windows skip only its own, so theirs would migrate the same workspaces side by side. ` +
      `Pause the other first (${others.map((s) => `wsmigrate schedule pause ${s.scheduleId.replace(/^wsmigrate-/, '')}`).join(', ')})` +
      (opts.ownWindows ? '' : ', or create this one with --paused'),
  );
}
