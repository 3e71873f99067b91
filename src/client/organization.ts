import { RefusedError } from './refused-error';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { parseInput } from '../domain/migration-input';
import { migrateOrganizationInputSchema, organizationWorkflowId, type MigrateOrganizationInput } from '../domain/organization-input';
import { organizationProgressQuery, organizationResultQuery, type OrganizationProgress, type OrganizationResult } from '../contracts/migrate-organization';
import { fleetStatus, type FleetStartOptions, type FleetStatus } from './fleet';
import { addSummaries, canaryThenRest, summaryOf } from '../domain/fleet-summary';
import { waitLines, type FleetWait } from '../domain/fleet-waits';
import { pacingLine, type FleetPacingStatus } from '../domain/provisioner-pacing';
import { createWindowSchedule, type FleetScheduleSpec } from './schedules';
import { refuseRunBesideOthers } from './fleet-conflicts';
import { rethrowNoRun } from './run-not-found';
import { runOutcome } from './run-outcome';
import { queryRunningRun } from './run-waits';
import { approvalCommands } from '../domain/run-details';
import { whoMayApprove } from '../domain/approval-policy';
import { organizationPause, rowStateText } from '../domain/organization-details';

/** Validates, then starts `migrateOrganization` as `wsmigrate-org/<org>`; a second start while it runs says so. */
export async function startOrganizationMigration(client: Client, input: MigrateOrganizationInput, opts: FleetStartOptions): Promise<WorkflowHandle> {
  const p = parseInput(migrateOrganizationInputSchema, input);
  const workflowId = opts.workflowId ?? organizationWorkflowId(p.organization);
  if (!opts.workflowId) await refuseRunBesideOthers(client, { organization: p.organization, templates: p.allTemplates ? 'all' : p.templates, taskQueue: opts.taskQueue }, { workflowId, noun: 'organization run' });
  try {
    return await client.workflow.start('migrateOrganization', {
      taskQueue: opts.taskQueue,
      workflowId,
      args: [input],
      staticSummary: `organization ${p.organization} → _v1 · ${p.allTemplates ? 'every template that needs it' : p.templates.join(', ')} · canary ${p.canary} each, one gate · C=${p.concurrency}, share ${p.provisionerShare}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw new RefusedError(`a migration of organization ${p.organization} is already running (${workflowId}); see 'wsmigrate fleet status ${workflowId}'`);
    }
    throw err;
  }
}

export interface OrganizationStatus {
  workflowId: string;
  phase: string;
  progress?: OrganizationProgress;
  result?: OrganizationResult;
  error?: string;
  /** The failure's type when the run failed with one: the CLI's exit code follows it. */
  failureType?: string;
  /** What the template fleet running now waits on (its gate, its template's or a workspace's, an activity retrying). */
  waitingOn?: FleetWait[];
  /** Running, but no worker answered its progress query: `phase` is its search attribute's, `waitingOn` says why. It has not ended. */
  unanswered?: true;
  /** How Coder's provisioner daemons pace the template fleet running now, and why it starts nothing when it waits on them. */
  pacing?: { fleet: string; status: FleetPacingStatus };
}

export async function organizationStatus(client: Client, workflowId: string): Promise<OrganizationStatus> {
  const handle = client.workflow.getHandle(workflowId);
  const d = await handle.describe().catch(rethrowNoRun(workflowId));
  const status = d.status.name;
  if (status === 'RUNNING') {
    // No worker to answer (none polls, or one was just killed): say so at once, not Temporal's error after 30 s.
    const asked = await queryRunningRun(client, d, () => handle.query(organizationProgressQuery));
    if ('unanswered' in asked) return { workflowId, phase: asked.unanswered.phase, unanswered: true, waitingOn: [{ kind: 'no-worker', workflowId, text: asked.unanswered.text }] };
    const progress = asked.value;
    // A gate two levels down (the template of the fleet running now) is still a person the run waits on.
    const current = progress.templates.find((r) => (r.state === 'canary' || r.state === 'rolling') && r.workflowId);
    const child = current?.workflowId ? await fleetStatus(client, current.workflowId).catch(() => undefined) : undefined;
    const live = liveOrganizationView(workflowId, progress, current?.workflowId, child);
    return { workflowId, phase: progress.phase, progress: live.progress, ...(live.waitingOn.length ? { waitingOn: live.waitingOn } : {}), ...(live.pacing ? { pacing: live.pacing } : {}) };
  }
  if (status === 'COMPLETED') {
    const result = (await handle.result()) as OrganizationResult;
    return { workflowId, phase: result.phase, result };
  }
  if (status === 'CANCELLED') {
    // Temporal keeps no result for a cancelled run; it answers with it while a worker replays it.
    const result = await handle.query(organizationResultQuery).catch(() => undefined);
    if (result) return { workflowId, phase: 'cancelled', result };
  }
  // Failed, terminated or timed out: Temporal's own reason with every cause (an activity's failure said 'Activity task failed' alone), as a fleet's.
  const outcome = await runOutcome(client, workflowId);
  if (outcome.state === 'running' || outcome.state === 'completed') return { workflowId, phase: status.toLowerCase() };
  return { workflowId, phase: outcome.state === 'cancelled' ? 'cancelled' : 'failed', error: outcome.reason ?? `workflow ${outcome.state}`, ...(outcome.failureType ? { failureType: outcome.failureType } : {}) };
}

/**
 * What an organization's run shows while it runs: the template fleet running now counted live (the
 * run itself adds a fleet's counts only when it ends), and the organization's own pause, whose resume
 * is the organization's: resuming the template fleet alone leaves the next templates held.
 */
export function liveOrganizationView(
  workflowId: string,
  progress: OrganizationProgress,
  currentFleetId: string | undefined,
  child: Pick<FleetStatus, 'progress' | 'waitingOn'> | undefined,
): { progress: OrganizationProgress; waitingOn: FleetWait[]; pacing?: OrganizationStatus['pacing'] } {
  const templates = progress.templates.map((r) =>
    r.workflowId === currentFleetId && child?.progress
      ? // The rest fleet running now counts the canary's migrated workspaces again, as already migrated: each once.
        { ...r, summary: r.state === 'rolling' && r.summary ? canaryThenRest(r.summary, summaryOf(child.progress.counts), false) : addSummaries(r.summary, summaryOf(child.progress.counts)) }
      : r,
  );
  // Paused at its own gate (the shared fleet-continue) the phase stays awaiting-approval, yet an approval alone starts nothing.
  const lastToggle = [...progress.control].reverse().find((c) => c.action === 'pause' || c.action === 'resume' || c.action === 'cancel');
  const atGate = progress.phase === 'awaiting-approval' && progress.pendingApproval ? progress.pendingApproval.gateId : undefined;
  const lastPause = lastToggle?.action === 'pause' && (progress.phase === 'paused' || atGate) ? lastToggle : undefined;
  const own: FleetWait[] = lastPause ? [{ kind: 'paused', workflowId, by: lastPause.by, since: lastPause.at, ...(lastPause.reason ? { reason: lastPause.reason } : {}), ...(atGate ? { atGate } : {}) }] : [];
  const fromChild = (child?.waitingOn ?? []).filter((w) => !(lastPause && w.kind === 'paused'));
  // Why the template fleet running now starts nothing: no daemon online, users' builds queued (its own status says it; the organization's did not).
  const pacing = child?.progress?.pacing;
  return {
    progress: { ...progress, templates, summary: templates.reduce((sum, r) => addSummaries(sum, r.summary), addSummaries(undefined, undefined)) },
    waitingOn: [...own, ...fromChild],
    ...(pacing && currentFleetId ? { pacing: { fleet: currentFleetId, status: pacing } } : {}),
  };
}

/** What a row's "0 migrated" would hide: workspaces already migrated, and those skipped for a person to act on. */
function leftAlone(sum: { alreadyMigrated: number; skipped: number }): string {
  return `${sum.alreadyMigrated > 0 ? `, ${sum.alreadyMigrated} already migrated` : ''}${sum.skipped > 0 ? `, ${sum.skipped} skipped` : ''}`;
}

/** `fleet status` of a deployment-wide run, one line per template. */
export function organizationStatusText(s: OrganizationStatus, nowMs?: number): string {
  const rows = s.progress?.templates ?? s.result?.templates ?? [];
  const pause = s.progress ? organizationPause(s.progress) : undefined;
  const by = s.result?.cancelledBy;
  const lines = [`${s.workflowId}: ${s.phase}${by ? ` by ${by.by}${by.reason ? ` (${by.reason})` : ''}` : ''}${s.progress && s.progress.stage !== s.phase ? ` (${s.progress.stage})` : ''}${s.error ? `: ${s.error}` : ''}`];
  for (const r of rows) {
    const sum = r.summary;
    lines.push(
      `  ${r.template.padEnd(24)} ${rowStateText(r, pause)}${sum ? ` · ${sum.migrated} migrated, ${sum.failed + sum.needsAttention + sum.restored} not ok, ${sum.declined ? `${sum.declined} declined at a gate, ` : ''}${sum.pvcUidsKept} PVC uids kept${leftAlone(sum)}` : ''}${r.note ? ` · ${r.note}` : ''}`,
    );
  }
  for (const line of waitLines(s.waitingOn ?? [])) lines.push(`  ${line}`);
  if (s.pacing) lines.push(`  ${s.pacing.fleet}: ${pacingLine(s.pacing.status, nowMs).replace(/\*\*/g, '')}`);
  if (s.progress?.pendingApproval) lines.push(`  waiting for approval of '${s.progress.pendingApproval.gateId}': ${s.progress.pendingApproval.summary}`, `    approvers: ${whoMayApprove(s.progress.pendingApproval)}`, `    ${approvalCommands(s.workflowId, s.progress.pendingApproval).cli}`);
  return lines.join('\n');
}

/**
 * Maintenance windows for a whole organization: each window starts `migrateOrganization`, whose
 * template fleets each start at most `batch` migrations (their `filters.limit`). Overlap SKIP and a
 * 1 h catch-up, as for one template's schedule.
 */
export async function createOrganizationSchedule(client: Client, name: string, input: MigrateOrganizationInput, spec: FleetScheduleSpec): Promise<string> {
  const withBatch: MigrateOrganizationInput = { ...input, filters: { ...(input.filters ?? {}), limit: spec.batch } };
  const p = parseInput(migrateOrganizationInputSchema, withBatch);
  return createWindowSchedule(client, name, spec, (scheduleId) => ({
    workflowType: 'migrateOrganization',
    input: withBatch,
    workflowId: organizationWorkflowId(p.organization),
    staticSummary: `organization ${p.organization} · ${p.allTemplates ? 'every template that needs it' : p.templates.join(', ')} · ${spec.batch} per template per window · schedule ${scheduleId}`,
    note: `wsmigrate organization ${p.organization}, ${spec.batch} per template per window`,
  }));
}
