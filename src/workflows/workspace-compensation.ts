import { ApplicationFailure, upsertMemo } from '@temporalio/workflow';
import type { StateBackup } from '../activities/backup-state';
import type { WorkspacePreflight } from '../activities/preflight-workspace';
import { durationMs, failureMessage } from './activity-presets';
import type { RoundContext } from './workspace-round';
import { FailureType } from '../domain/failure-types';

/**
 * One build back: the prior transition on the prior version carrying the backed-up bytes, only on top
 * of our own builds. Returns why nothing was built back, when the restore left the workspace as it found it.
 */
export async function compensate(
  ctx: RoundContext,
  pf: WorkspacePreflight,
  run: { backup?: StateBackup; ownBuildIds: string[]; stateBuildTried: boolean; transition: 'start' | 'stop' },
): Promise<string | undefined> {
  const { input, subject, workflowId, status, acts, enter, done } = ctx;
  enter('compensating');
  try {
    const restored = await ctx.restoring.restoreByBuild.executeWithOptions(
      { summary: `compensation: ${pf.prior.transition} ${subject} on its prior version${run.backup ? ' carrying the backed-up state' : ''}, and wait for the build` },
      [
        {
          workspaceId: pf.workspaceId,
          subject,
          prior: pf.prior,
          readBuild: { id: pf.latestBuild.id, buildNumber: pf.latestBuild.buildNumber },
          ...(run.backup ? { backup: run.backup } : {}),
          ownBuildIds: run.ownBuildIds,
          ...(run.stateBuildTried ? { ownStateBuild: { transition: run.transition, templateVersionId: input.targetVersionId } } : {}),
          timeoutMs: durationMs(input.buildTimeout),
        },
      ],
    );
    await ctx.watch.after(restored.buildId);
    done('restore');
    enter('restored');
    const note = restored.leftAsIs ? ` ${restored.leftAsIs}.` : ' State and transition restored.';
    upsertMemo({ outcome: 'restored', reason: `${status.error ?? ''}${restored.leftAsIs ? ` (${restored.leftAsIs})` : ''}`.slice(0, 300) });
    await acts.notify.executeWithOptions({ summary: 'notify restored' }, [{ kind: 'restored', workflowId, subject: `Restored ${subject}`, text: `Migration stopped: ${status.error}.${note}` }]);
    return restored.leftAsIs;
  } catch (compErr) {
    enter('needs-attention');
    upsertMemo({ outcome: 'needs-attention' });
    await acts.notify.executeWithOptions({ summary: 'notify migration-failed' }, [{ kind: 'migration-failed', workflowId, subject: `Needs attention: ${subject}`, text: `Restore did not finish: ${failureMessage(compErr)}` }]);
    throw ApplicationFailure.create({
      message: `${subject}: migration failed (${status.error}) and the restore did not finish: ${failureMessage(compErr)}`,
      type: FailureType.needsAttention,
      nonRetryable: true,
    });
  }
}
