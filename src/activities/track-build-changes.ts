import { detectBuildChanges, worthReporting } from '../domain/build-changes';
import type { TrackedBuild } from '../contracts/migrate-workspace';
import { protectionOf } from './template-facts';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';
import type { StepReads } from './step-reads';
import type { LoadTemplateSource } from './template-source';

export interface TrackBuildChangesInput {
  workflowId: string;
  subject: string;
  template: string;
  buildId: string;
}

const MAX_LISTED = 50;

/**
 * After a build wsmigrate triggered: reads its log for replacements, destroys and type-rename
 * deletes (seed 003), counts them, and tells humans when one matters. Judging the result (a
 * protected resource gone fails the migration) is the workflow's job.
 */
export function makeTrackBuildChanges({ coder, notifier, metrics }: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  /** `reads`: the build as its wait saw it end (not read again); its logs are kept there for the post-build check. */
  return async function trackBuildChanges(input: TrackBuildChangesInput, reads?: StepReads): Promise<TrackedBuild> {
    const step = 'read build changes';
    const ended = reads?.endedBuild?.id === input.buildId ? reads.endedBuild : undefined;
    const build = ended ?? (await coderStep(step, input.subject, () => coder.workspaceBuild(input.buildId)));
    const logs = await coderStep(step, input.subject, () => coder.workspaceBuildLogs(input.buildId));
    if (reads && ended) reads.endedBuildLogs = logs;
    const source = await loadTemplateSource(build.template_version_id, input.subject);
    const report = detectBuildChanges(
      logs.map((l) => l.output),
      protectionOf(source.terraform).annotatedAddresses,
    );
    for (const c of report.changes) metrics?.resourceChangeSeen(c.kind, input.template, c.resourceType);
    if (report.protectedDestroyed.length > 0) metrics?.damagedWorkspaceFound('protected-destroyed');
    if (worthReporting(report)) {
      const listed = report.changes.slice(0, 10).map((c) => `${c.kind} ${c.address}${c.twinAddress ? ` -> ${c.twinAddress}` : ''}${c.protected ? ' (PROTECTED)' : ''}`);
      await notifier
        .notify({
          kind: 'replacements-detected',
          workflowId: input.workflowId,
          subject: `${report.protectedDestroyed.length > 0 ? 'PROTECTED RESOURCE DESTROYED' : 'Resource replacements'} in ${build.transition} build #${build.build_number} of ${input.subject}`,
          text: `${listed.join('; ')}${report.changes.length > listed.length ? `; and ${report.changes.length - listed.length} more` : ''}`,
        })
        .catch(() => undefined); // a lost notification must not hide the finding: the workflow status still has it
    }
    return {
      buildId: build.id,
      buildNumber: build.build_number,
      transition: build.transition,
      changes: report.changes.slice(0, MAX_LISTED),
      changeCount: report.changes.length,
      protectedDestroyed: report.protectedDestroyed,
    };
  };
}
