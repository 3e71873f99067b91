/** The two times coderd stores for a workspace's schedule and dormancy: next_start_at and deleting_at. */
import { nextScheduled, parseWeeklySchedule } from './cron-schedule';
import type { TemplateRecord, WorkspaceRecord } from './model';

/**
 * schedule.NextAllowedAutostart (coderd/schedule/autostart.go): the schedule's next minute after `at`
 * on a day the template's autostart_requirement allows; the simulator's templates allow every day.
 * Undefined when the schedule names no time (coderd then leaves next_start_at as it was: null).
 */
export function nextAllowedAutostart(schedule: string, at: Date): string | undefined {
  return nextScheduled(parseWeeklySchedule(schedule), at)?.toISOString();
}

/**
 * deleting_at as coderd/database/queries/workspaces.sql writes it (UpdateWorkspaceDormantDeletingAt when
 * a workspace is made dormant, UpdateWorkspacesDormantDeletingAtByTemplateID when the template's
 * time_til_dormant_autodelete changes): dormant_at + time_til_dormant_autodelete, null when the
 * workspace is not dormant or the template sets 0. Derived, so a template PATCH moves it as coderd's does.
 */
export function deletingAt(ws: WorkspaceRecord, template: TemplateRecord | undefined): string | undefined {
  const after = template?.meta.timeTilDormantAutodeleteMs ?? 0;
  if (ws.dormantAt === undefined || after <= 0) return undefined;
  return new Date(Date.parse(ws.dormantAt) + after).toISOString();
}
