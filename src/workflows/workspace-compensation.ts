import { ApplicationFailure, upsertMemo } from '@temporalio/workflow';
import type { StateBackup } from '../activities/backup-state';
import type { WorkspacePreflight } from '../activities/preflight-workspace';
import { durationMs, failureMessage, failureType } from './activity-presets';
import { dormantWhoMustAct } from '../domain/dormancy';
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
    const dormant = dormantRefusal(compErr);
    // The cause lets a later fleet say what to do instead of "restore it by hand" (discover-fleet.ts).
    upsertMemo({ outcome: 'needs-attention', ...(dormant ? { cause: 'dormant' } : {}) });
    // Made dormant by Coder after our stop: the cause first, then where it stands and who must act (not the token's permissions).
    const message = dormant
      ? dormantAfterStopText(ctx, pf, run.backup, dormant)
      : `${subject}: migration failed (${status.error}) and the restore did not finish: ${failureMessage(compErr)}${restoreByHand(ctx, run.backup, failureMessage(compErr))}`;
    await acts.notify.executeWithOptions({ summary: 'notify migration-failed' }, [
      { kind: 'migration-failed', workflowId, subject: `Needs attention: ${subject}`, text: dormant ? message : `Restore did not finish: ${failureMessage(compErr)}` },
    ]);
    throw ApplicationFailure.create({ message, type: FailureType.needsAttention, nonRetryable: true });
  }
}

/**
 * Where to turn once the restore gave up, unless its own failure already says it (a failed restore build
 * does; a refusal by Coder, a token that lost its rights mid-run, says only what Coder said).
 */
function restoreByHand(ctx: RoundContext, backup: StateBackup | undefined, said: string): string {
  if (!backup || said.includes('wsmigrate state restore')) return '';
  const { subject, input } = ctx;
  return (
    `. Its backup, the state before the migration: ${backup.blob.ref}. Once the cause is dealt with and no build runs on ${subject}, ` +
    `'wsmigrate scan --template ${input.template}' says where it stands, and 'wsmigrate state restore ${subject} --backup ${backup.blob.ref} --yes' puts that state back`
  );
}

/** The dormancy a restore's start was refused for (build-with-state.ts dormantStartRefused), if that is why. */
function dormantRefusal(err: unknown): { dormantSince: string; latestBuildNumber: number } | undefined {
  if (failureType(err) !== FailureType.dormant) return undefined;
  const e = err as { details?: unknown[]; cause?: { details?: unknown[] } };
  const d = (e?.cause?.details ?? e?.details)?.[0] as { dormantSince?: unknown; latestBuildNumber?: unknown } | undefined;
  return typeof d?.dormantSince === 'string' && typeof d.latestBuildNumber === 'number' ? { dormantSince: d.dormantSince, latestBuildNumber: d.latestBuildNumber } : undefined;
}

/**
 * Coder's lifecycle executor made the workspace dormant while the migration had it stopped (option A):
 * neither the migrated build's start nor the restore's may run, so it stays stopped as our stop left it.
 */
function dormantAfterStopText(ctx: RoundContext, pf: WorkspacePreflight, backup: StateBackup | undefined, d: { dormantSince: string; latestBuildNumber: number }): string {
  const { input, subject } = ctx;
  const held = backup ? `the state backed up before anything was written (sha256 ${backup.blob.sha256.slice(0, 12)}…, ${backup.blob.ref})` : 'its state as the preflight read it';
  return (
    `${subject}: Coder marked it dormant at ${d.dormantSince}, during the migration, after its stop: Coder lets nobody start a dormant workspace, so neither the build carrying the migrated state nor the restore's start could run (Coder's 403 to both is for the dormancy, not for the token). ` +
    `It is stopped (build #${d.latestBuildNumber}) on its prior version ${pf.prior.templateVersionId}, holding ${held}; the stop destroyed no protected object, so its home PVC is kept. ` +
    `Next: ${dormantWhoMustAct(pf.workspaceId)}, then run 'wsmigrate migrate workspace ${subject} --template ${input.template} --version ${input.targetVersionId}' again: ` +
    'it migrates the workspace as it finds it (stopped: one stop build carrying the migrated state), and its owner starts it afterwards'
  );
}
