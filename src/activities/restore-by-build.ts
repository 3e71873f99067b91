import { builtBy } from '../domain/build-initiator';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceBuild } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import type { StateBackup } from './backup-state';
import { runStateBuildOnce, stateBytes, type StateBuildRequest } from './build-with-state';
import { isWorkspaceGone } from './builds';
import { heartbeatedBuildId } from './heartbeat';
import { restoreDifferences } from '../domain/migration-check';
import { parametersLost } from '../domain/build-parameters';
import { parseStateV4, type StateResourceView } from '../domain/state';
import { blobStep } from './blob-step';
import { FailureType, coderStep, conflict } from './failures';
import type { ActivityDeps } from './ports';

const ACTIVE_JOB = new Set(['pending', 'running', 'canceling']);
/** The prior build is one the workspace already ran: a provisioner's passing failure may be tried again. */
const RESTORE_BUILD_TRIES = 3;

export interface RestoreByBuildInput {
  workspaceId: string;
  subject: string;
  /** The transition and version the workspace had before the migration. */
  prior: { transition: 'start' | 'stop'; templateVersionId: string };
  /** The build preflight read: every build after it is this migration's or someone else's. */
  readBuild: { id: string; buildNumber: number };
  /** The backed-up state the restore build carries; absent when the run failed before the backup. */
  backup?: StateBackup;
  /** Builds this migration made (their ids, as the activities reported them). */
  ownBuildIds: string[];
  /** The migrated-state build when it was attempted: a failed or lost attempt reports no id, so it is known by its shape. */
  ownStateBuild?: { transition: 'start' | 'stop'; templateVersionId: string };
  timeoutMs: number;
}

export interface RestoreByBuildResult {
  changed: boolean;
  buildId?: string;
  /** Set when someone else built after the backup and nothing migrated had reached Coder: their build stands. */
  leftAsIs?: string;
}

/**
 * Compensation, one build: the prior transition on the prior version, carrying the backed-up bytes
 * (the migration's own write is undone the same way it was made, never by a bare state PUT). Only
 * ever on top of a build of this migration; someone else's build is never written over.
 */
export function makeRestoreByBuild(deps: ActivityDeps) {
  return async function restoreByBuild(input: RestoreByBuildInput): Promise<RestoreByBuildResult> {
    const step = 'restore build';
    const { coder } = deps;
    const baseline = input.backup ? { id: input.backup.buildId, buildNumber: input.backup.buildNumber } : input.readBuild;
    const own = new Set(input.ownBuildIds);
    // An earlier attempt's stop before its restore (stopBeforeRestore) is known by the id it heartbeated.
    const earlierStop = heartbeatedBuildId();
    // By shape only a build our token's user started: an owner's "Update" is a start on the new version too.
    const me = input.ownStateBuild ? (await coderStep(step, input.subject, () => coder.currentUser())).id : undefined;
    const isOurs = (b: WorkspaceBuild) =>
      own.has(b.id) ||
      (b.id === earlierStop && b.transition === 'stop') ||
      (b.build_number > baseline.buildNumber &&
        input.ownStateBuild !== undefined &&
        (!b.initiator_id || b.initiator_id === me) &&
        b.transition === input.ownStateBuild.transition &&
        b.template_version_id === input.ownStateBuild.templateVersionId);
    const isRestore = (b: WorkspaceBuild) => b.build_number > baseline.buildNumber && b.transition === input.prior.transition && b.template_version_id === input.prior.templateVersionId;

    // Our stops before the restore start: one that failed or was canceled may have left what it was to remove (the
    // provisioner stores the state a failed job wrote), so the next try stops again rather than start on top of it.
    const stopsFirst = new Set<string>(earlierStop ? [earlierStop] : []);
    const isUnfinishedStopFirst = (b: WorkspaceBuild) => stopsFirst.has(b.id) && b.transition === 'stop' && b.job.status !== 'succeeded' && input.prior.transition === 'start' && input.backup !== undefined;
    let failedRestores = 0;
    for (;;) {
      const ws = await coder.workspace(input.workspaceId).catch((err: unknown) => {
        if (isWorkspaceGone(err)) return undefined;
        return coderStep(step, input.subject, () => Promise.reject(err));
      });
      // Deleted meanwhile (its owner, an admin): a workspace delete took everything; there is nothing to build back onto.
      if (!ws) return { changed: false, leftAsIs: `the workspace was deleted meanwhile: nothing to restore${input.backup ? `; the backup stays at ${input.backup.blob.ref}` : ''}` };
      let latest = ws.latest_build;
      if (ACTIVE_JOB.has(latest.job.status)) {
        if (!isOurs(latest) && !isRestore(latest)) {
          throw ApplicationFailure.create({ message: `${step}: ${input.subject}: build #${latest.build_number} by ${builtBy({ initiator: latest.initiator_name, reason: latest.reason })} is ${latest.job.status}; waiting for it`, type: FailureType.busy });
        }
        latest = await coderStep(step, input.subject, () => coder.waitForBuild(latest.id, { timeoutMs: input.timeoutMs }));
      }
      // Nothing of this migration after the build it read or backed up: nothing to undo, whatever that build is. One
      // not at the prior (its owner's start that failed) is theirs and stays as they left it: a stop over it undoes nothing of ours.
      if (latest.id === baseline.id && !isOurs(latest)) return { changed: false };
      // A succeeded build after ours with the prior transition and version is this step's, from an earlier attempt.
      if (isRestore(latest) && !isOurs(latest) && latest.job.status === 'succeeded') return restored(deps, input, latest);
      if (!isOurs(latest) && !isRestore(latest)) return theirs(coder, input, step, baseline, latest, isOurs);
      const parameters = await lostParameterValues(deps, input, step, baseline.id, latest.id);
      const restoreRequest: StateBuildRequest = {
        workspaceId: input.workspaceId,
        subject: input.subject,
        transition: input.prior.transition,
        templateVersionId: input.prior.templateVersionId,
        ...(input.backup ? { state: { ref: input.backup.blob.ref, sha256: input.backup.blob.sha256 } } : {}),
        read: { id: latest.id, buildNumber: latest.build_number },
        timeoutMs: input.timeoutMs,
        step,
        ...(input.backup ? { blobHint: unreadableBackupHint(input.subject, input.backup) } : {}),
        ...(parameters.length > 0 ? { parameters } : {}),
      };
      const stopFirst = (isOurs(latest) || isRestore(latest)) && (isUnfinishedStopFirst(latest) || (await startedSinceStoppedBackup(coder, input, latest)));
      try {
        if (stopFirst) {
          // The backup is read and checked first: one that cannot be restored builds nothing, not even this stop.
          await stateBytes(deps.blobs, restoreRequest);
          const stop = await runStateBuildOnce(deps, {
            workspaceId: input.workspaceId,
            subject: input.subject,
            transition: 'stop',
            templateVersionId: latest.template_version_id,
            read: { id: latest.id, buildNumber: latest.build_number },
            timeoutMs: input.timeoutMs,
            step: `${step} (its stop first)`,
          });
          own.add(stop.id);
          stopsFirst.add(stop.id);
          continue;
        }
        const build = await runStateBuildOnce(deps, restoreRequest);
        return await restored(deps, input, build);
      } catch (err) {
        // Our failed build is now the latest. A failed restore start has the restore's shape (isRestore), so the next
        // try goes on top of it; a failed stop-first is known by its id (the failure carries it) and is stopped again.
        if (!(err instanceof ApplicationFailure && err.type === FailureType.buildFailed)) throw err;
        const failedId = failedBuildId(err);
        if (stopFirst && failedId) {
          own.add(failedId);
          stopsFirst.add(failedId);
        }
        if (++failedRestores >= RESTORE_BUILD_TRIES) throw restoreBuildsFailed(err, input, failedRestores);
      }
    }
  };
}

/** The values the workspace had at `baselineId` that the build the restore goes on top of lost (`parametersLost`); empty when none, so the restore sends what it always sent. */
async function lostParameterValues(deps: ActivityDeps, input: RestoreByBuildInput, step: string, baselineId: string, latestId: string): Promise<{ name: string; value: string }[]> {
  if (baselineId === latestId) return [];
  const [had, now] = await Promise.all([
    coderStep(step, input.subject, () => deps.coder.workspaceBuildParameters(baselineId)),
    coderStep(step, input.subject, () => deps.coder.workspaceBuildParameters(latestId)),
  ]);
  return parametersLost(had, now);
}

/**
 * Whether a provisioner may have applied this ended job, leaving what it created in the state Coder
 * stores for the build (provisionerdserver CompleteJob and FailJob write the state the job returns).
 * A canceled job either ran (canceled while running, its apply finished: CompleteJob, `canceled`) or
 * never did: canceled while pending it got completed_at with no worker (coderd/workspacebuilds.go
 * patchCancelWorkspaceBuild) and no started_at (set when a daemon acquires it, AcquireProvisionerJob in
 * coderd/database/queries/provisionerjobs.sql), so its build holds the state it was created with, the
 * bytes we sent (coderd/wsbuilder/wsbuilder.go getState), and created nothing: no stop is needed.
 */
function mayHaveApplied(job: WorkspaceBuild['job']): boolean {
  if (job.status === 'canceled') return Boolean(job.started_at);
  return job.status === 'succeeded' || job.status === 'failed';
}

/**
 * Option A backs up the state of its own stop, which holds none of what our start then created (the
 * deployment, its pods): a restore start on top of that start would create them again and fail
 * (AlreadyExists) every time, leaving the workspace unable to start. So that start is first stopped
 * on its own version with the state Coder holds for it, which removes them; the restore then starts
 * the workspace from the backup as the stop left it.
 *
 * A start of ours that *failed* is stopped the same way: provisionerd's FailJob stores the state
 * Terraform wrote (coderd/provisionerdserver/provisionerdserver.go), and Terraform keeps what it
 * created before the failure (a deployment whose rollout timed out stays, tainted). Measured on the
 * real stack (test/workflows/real-stack.test.ts): without this stop the restore start failed
 * AlreadyExists three times. A failed start that created nothing is stopped with nothing to change.
 * A canceled one is stopped the same way whenever a provisioner took it (mayHaveApplied). So is our
 * own restore start that failed or was canceled after creating something (its state is no longer the
 * backup's): the next restore start would create it again; that stop runs on the old version with
 * the old types it holds.
 */
async function startedSinceStoppedBackup(coder: ActivityDeps['coder'], input: RestoreByBuildInput, latest: WorkspaceBuild): Promise<boolean> {
  if (!input.backup || input.prior.transition !== 'start') return false;
  if (latest.transition !== 'start' || !mayHaveApplied(latest.job)) return false;
  if (latest.template_version_id === input.prior.templateVersionId) {
    // A restore start of ours that failed or was canceled (a succeeded one is the restore): it ran on the
    // backup's bytes, so only one whose state Coder now holds otherwise can have created something.
    const held = await coderStep('restore build', input.subject, () => coder.getWorkspaceBuildState(latest.id));
    if (sha256Hex(held) === input.backup.blob.sha256) return false;
  }
  const backupId = input.backup.buildId;
  const backedUp = await coderStep('restore build', input.subject, () => coder.workspaceBuild(backupId));
  return backedUp.transition === 'stop';
}

/**
 * A restore is only called one once Coder holds the backup's objects: the state Coder keeps for the
 * restore build is read back and every persistent object of the backup must be there, at its
 * address and with its uid. Coder may keep other bytes than the build wrote (a lost write), and a
 * `_v1` state under the prior version is the one the next build of that version destroys.
 */
async function restored(deps: ActivityDeps, input: RestoreByBuildInput, build: WorkspaceBuild): Promise<RestoreByBuildResult> {
  if (!input.backup) return { changed: true, buildId: build.id };
  const step = 'restore build';
  const backupRef = input.backup.blob.ref;
  const backup = parseStateV4((await blobStep(step, input.subject, () => deps.blobs.get(backupRef))).toString('utf8')).resources;
  const heldText = (await coderStep(step, input.subject, () => deps.coder.getWorkspaceBuildState(build.id))).toString('utf8');
  const problems = heldText.trim() === '' ? ['it holds no state at all'] : readableDifferences(backup, heldText);
  if (problems.length === 0) return { changed: true, buildId: build.id };
  throw conflict(
    step,
    input.subject,
    `restore build #${build.build_number} succeeded, but the state Coder holds for it is not the backup's: ${problems.join('; ')}. ` +
      `Do not start or update the workspace until its state is put back; once it is idle: wsmigrate state restore ${input.subject} --backup ${backupRef} --yes`,
  );
}

function readableDifferences(backup: readonly StateResourceView[], heldText: string): string[] {
  try {
    return restoreDifferences(backup, parseStateV4(heldText).resources);
  } catch (err) {
    return [`its state is unreadable (${err instanceof Error ? err.message : String(err)})`];
  }
}

/** Someone else built after the baseline. Safe to leave when nothing migrated reached Coder; otherwise a human must look. */
async function theirs(
  coder: ActivityDeps['coder'],
  input: RestoreByBuildInput,
  step: string,
  baseline: { id: string; buildNumber: number },
  latest: WorkspaceBuild,
  isOurs: (b: WorkspaceBuild) => boolean,
): Promise<RestoreByBuildResult> {
  const recent = await coderStep(step, input.subject, () => coder.workspaceBuilds(input.workspaceId, { limit: Math.min(100, latest.build_number - baseline.buildNumber + 1) }));
  const ourWrites = recent.filter((b) => b.build_number > baseline.buildNumber && b.build_number < latest.build_number && isOurs(b));
  const who = `build #${latest.build_number} (${latest.transition}) by ${builtBy({ initiator: latest.initiator_name, reason: latest.reason })}`;
  if (ourWrites.length === 0) {
    // Their build is theirs to judge; one that failed (an Update onto the migrated version, say) may have left the workspace damaged.
    const failed = latest.job.status === 'succeeded' ? '' : `; it ended ${latest.job.status}: 'wsmigrate scan' tells whether it left the workspace damaged, 'wsmigrate recover ${input.subject}' brings it back from its newest good build`;
    return { changed: false, leftAsIs: `${who} came after the backup and no migrated state reached Coder: left as it is${failed}` };
  }
  const restoreHint = input.backup ? ` Once the workspace is idle, restore the backup with: wsmigrate state restore ${input.subject} --backup ${input.backup.blob.ref} --yes` : '';
  throw conflict(step, input.subject, `${who} was made on top of this migration's build #${ourWrites[0].build_number}; not restoring over it.${restoreHint}`);
}

function failedBuildId(err: ApplicationFailure): string | undefined {
  const first = (err.details ?? [])[0] as { buildId?: unknown } | undefined;
  return typeof first?.buildId === 'string' ? first.buildId : undefined;
}

/** Every restore build failed: the build's own reason, then what puts the workspace right once that is fixed. */
function restoreBuildsFailed(err: ApplicationFailure, input: RestoreByBuildInput, tries: number): ApplicationFailure {
  const next = input.backup
    ? `Fix what fails the build (above), then, once the workspace is idle, put the backed-up state back: wsmigrate state restore ${input.subject} --backup ${input.backup.blob.ref} --yes`
    : `Fix what fails the build (above), then build ${input.subject} again on its prior version ${input.prior.templateVersionId} (${input.prior.transition})`;
  return ApplicationFailure.create({
    message: `${err.message}. The restore build was tried ${tries} times and failed each time. ${next}`,
    type: err.type ?? FailureType.buildFailed,
    nonRetryable: err.nonRetryable ?? false,
    details: err.details ?? [],
  });
}

/**
 * The migration never overwrote the backed-up build (its state went in a build of its own), so
 * Coder itself still holds the pre-migration state there: the way back when our copy is lost.
 */
function unreadableBackupHint(subject: string, backup: StateBackup): string {
  const n = backup.buildNumber;
  return (
    `Nothing was written to Coder. Coder keeps its own copy of the state from before the migration on build #${n} (coder state pull ${subject} --build ${n}). ` +
    `Make the backup readable (or find it), then restore it by hand: wsmigrate state restore ${subject} --backup ${backup.blob.ref} --yes`
  );
}
