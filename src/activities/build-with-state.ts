import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceBuild } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import { blobStep } from './blob-step';
import { builtMeanwhile, downgradeHazards, refuseDowngrade, workspaceUnlessDeleted } from './builds';
import { FailureType, coderStep, conflict, jobOutcomeText, refuse } from './failures';
import { activeVersionChangedRefusal } from '../domain/inactive-target';
import { findNamedObject, outsideStateAdvice, parseAlreadyExists, type HeldBefore } from '../domain/object-outside-state';
import { parseStateV4 } from '../domain/state';
import { heartbeatedBuildId, heartbeatIfInActivity } from './heartbeat';
import type { ActivityDeps } from './ports';
import type { StepReads } from './step-reads';

const ACTIVE_JOB = new Set(['pending', 'running', 'canceling']);

/** The build a step read before it writes: the latest build must still be this one when the write goes out. */
export interface ReadBuild {
  id: string;
  buildNumber: number;
  /** The state that build must still hold (someone may have PUT another onto it); unchecked when absent. */
  stateSha256?: string;
}

export interface StateBuildRequest {
  workspaceId: string;
  subject: string;
  transition: 'start' | 'stop';
  /** Always pinned: a build without a version reuses the previous build's, which is the runbook's hazard. */
  templateVersionId: string;
  /** The bytes the build runs on (a blob ref and its sha256); absent, the build runs on the previous build's state. */
  state?: { ref: string; sha256: string };
  read: ReadBuild;
  timeoutMs: number;
  /** Names the step in messages: 'migrated-state build', 'restore build'. */
  step: string;
  /** The way back, read back intact before the write: a build is never made without a backup that restores it. */
  backupRef?: string;
  /** What to do when a blob cannot be read: said after the reason. */
  blobHint?: string;
  /** How to try again once a person has dealt with what failed the build ("run `wsmigrate recover …` again"). */
  rerun?: string;
  /**
   * `templateVersionId` must still be the template's active version when the write goes out (a run
   * without --allow-inactive-version): the preflight checked it, but a promote since (a rollback while the
   * run waited at its gate) would leave the workspace outdated, one Update away from losing its PVC.
   * Absent (a run a worker before this one started): not checked.
   */
  activeVersionRequired?: boolean;
  /** `rich_parameter_values`: only a restore gives any (the values the workspace had that the build it goes on top of lost). */
  parameters?: { name: string; value: string }[];
}

export interface BuildWithStateInput extends Omit<StateBuildRequest, 'step'> {
  purpose: 'migrate' | 'recover';
}

export interface BuiltWithState {
  buildId: string;
  buildNumber: number;
}

/**
 * One build that carries its state: `POST /workspaces/{id}/builds` with `transition`,
 * `template_version_id` and `state` together (coderd/workspacebuilds.go `postWorkspaceBuilds`,
 * coderd/wsbuilder/wsbuilder.go `State`). Coder never holds the migrated state under an old
 * version, so no Start, Stop or autostart (coderd/autobuild/lifecycle_executor.go builds on the
 * previous build's version) can fall between a state write and a pinned build.
 *
 * Written only onto the build that was read: when another build came after it, or it holds another
 * state now, nothing is sent (builtMeanwhile) and the workflow starts over. Safe to run twice: a
 * retry finds the build its earlier attempt made (heartbeated id, else build number + 1 with the same
 * transition and version, and, while its job runs, the same state) and waits for it.
 */
/** Coder refused a start because the workspace is dormant: the cause first, not the token's permissions. */
export function dormantStartRefused(step: string, subject: string, since: string, latestBuild: number): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${step} refused for ${subject}: Coder marked the workspace dormant at ${since}, during the migration (its latest build #${latestBuild}), and lets nobody start a dormant workspace (403); no build was queued`,
    type: FailureType.dormant,
    nonRetryable: true,
    details: [{ dormantSince: since, latestBuildNumber: latestBuild }],
  });
}

export async function runStateBuildOnce({ coder, blobs }: Pick<ActivityDeps, 'coder' | 'blobs'>, req: StateBuildRequest): Promise<WorkspaceBuild> {
  const { step, subject } = req;
  const ws = await workspaceUnlessDeleted(coder, step, subject, req.workspaceId, req.read.buildNumber);
  const latest = ws.latest_build;
  const earlier = heartbeatedBuildId();
  let build: WorkspaceBuild | undefined = earlier === latest.id && latest.id !== req.read.id ? latest : undefined;
  if (!build && latest.id !== req.read.id) {
    if (!(await isOurEarlierBuild(coder, req, latest))) throw builtMeanwhile(step, subject, latest, req.read.buildNumber);
    build = latest;
  }
  if (!build) {
    if (ACTIVE_JOB.has(latest.job.status)) {
      throw ApplicationFailure.create({ message: `${step}: ${subject}: build #${latest.build_number} is still ${latest.job.status}; waiting for it`, type: FailureType.busy });
    }
    const heldNow = req.read.stateSha256 !== undefined || !req.state ? await coderStep(step, subject, () => coder.getWorkspaceBuildState(latest.id)) : undefined;
    if (heldNow && req.read.stateSha256 !== undefined && sha256Hex(heldNow) !== req.read.stateSha256) {
      throw ApplicationFailure.create({
        message: `${step}: ${subject}: the state of build #${latest.build_number} changed since it was read (sha256 ${sha256Hex(heldNow).slice(0, 12)}…); nothing was written over it`,
        type: FailureType.builtMeanwhile,
        nonRetryable: true,
      });
    }
    if (req.backupRef) {
      const ref = req.backupRef;
      await blobStep(step, subject, () => blobs.get(ref), `Nothing was written to Coder: build #${req.read.buildNumber} is unchanged; run the migration again to take a fresh backup`);
    }
    const bytes = req.state ? await stateBytes(blobs, req) : undefined;
    if (req.activeVersionRequired && ws.template_active_version_id !== req.templateVersionId) {
      throw await activeVersionChanged(coder, req, { template: ws.template_name, activeId: ws.template_active_version_id }, bytes ?? heldNow ?? Buffer.alloc(0));
    }
    await refuseDowngrade(coder, step, subject, bytes ?? heldNow ?? Buffer.alloc(0), req.templateVersionId);
    try {
      build = await coderStep(step, subject, () =>
        // The workspace read above, with only reads since: the client need not read it again to know which builds are newer.
        coder.createWorkspaceBuild(
          req.workspaceId,
          { transition: req.transition, template_version_id: req.templateVersionId, ...(bytes ? { state: bytes } : {}), ...(req.parameters?.length ? { rich_parameter_values: req.parameters } : {}) },
          { before: ws },
        ),
      );
    } catch (err) {
      // 409: a build became active between the read and the write; theirs stands, ours is not queued behind it.
      if (err instanceof ApplicationFailure && err.type === 'CoderApi.conflict') {
        const now = (await coderStep(step, subject, () => coder.workspace(req.workspaceId))).latest_build;
        throw builtMeanwhile(step, subject, now, req.read.buildNumber);
      }
      // 403 to a start: a token that lacks `start`, or a workspace Coder made dormant since it was read
      // (coderd/autobuild/lifecycle_executor.go; wsbuilder.go authorize: nobody holds start on workspace_dormant).
      if (err instanceof ApplicationFailure && err.type === 'CoderApi.forbidden' && req.transition === 'start') {
        const now = await coderStep(step, subject, () => coder.workspace(req.workspaceId));
        if (now.dormant_at) throw dormantStartRefused(step, subject, now.dormant_at, now.latest_build.build_number);
      }
      throw err;
    }
    heartbeatIfInActivity({ buildId: build.id });
  }
  const created = build;
  const done = await coderStep(step, subject, () =>
    coder.waitForBuild(created.id, { timeoutMs: req.timeoutMs, first: created, onPoll: (b: WorkspaceBuild) => heartbeatIfInActivity({ buildId: b.id, status: b.job.status }) }),
  );
  if (done.job.status !== 'succeeded') {
    const why = jobOutcomeText(done.job);
    const outside = await objectOutsideState(coder, req, done, why);
    throw ApplicationFailure.create({
      message: `${step} #${done.build_number} of ${subject} (${req.transition} on version ${req.templateVersionId}) ended ${done.job.status}: ${why}${outside ? `. ${outside.advice}` : ''}`,
      type: FailureType.buildFailed,
      nonRetryable: true,
      details: [{ buildId: done.id, buildNumber: done.build_number, ...(outside ? { outsideState: outside.object } : {}) }],
    });
  }
  return done;
}

/** The target is no longer the template's active version: refused before the write, saying what Update would do and what to run. */
async function activeVersionChanged(
  coder: ActivityDeps['coder'],
  req: StateBuildRequest,
  now: { template: string; activeId: string },
  bytes: Buffer,
): Promise<ApplicationFailure> {
  const [target, hazards] = await Promise.all([
    coderStep(req.step, req.subject, () => coder.templateVersion(req.templateVersionId)),
    coderStep(req.step, req.subject, () => downgradeHazards(coder, req.subject, bytes, now.activeId)),
  ]);
  const active = { id: now.activeId, oldTypes: hazards.length > 0 };
  return refuse(req.step, req.subject, activeVersionChangedRefusal(req.subject, now.template, { id: target.id, name: target.name }, active));
}

/** How many recent builds' states are searched for the namespace and uid of an object left outside the state. */
const OUTSIDE_STATE_DEPTH = 10;

/**
 * A build that failed with Kubernetes' AlreadyExists for an object its own state does not hold: which
 * object, where (from the newest recent state that held it), and what a person does. Reads only;
 * undefined for any other failure, or when the reads fail (Terraform's words then stand alone).
 */
async function objectOutsideState(coder: ActivityDeps['coder'], req: StateBuildRequest, failed: WorkspaceBuild, why: string) {
  const object = parseAlreadyExists(why);
  if (!object) return undefined;
  try {
    const own = parseStateV4((await coder.getWorkspaceBuildState(failed.id)).toString('utf8'));
    if (findNamedObject(own.resources, object.name)) return undefined; // in its state: another problem than a leftover
    const earlier = (await coder.workspaceBuilds(req.workspaceId, { limit: OUTSIDE_STATE_DEPTH })).filter((b) => b.build_number < failed.build_number);
    let held: HeldBefore | undefined;
    for (const b of earlier.sort((x, y) => y.build_number - x.build_number)) {
      try {
        const found = findNamedObject(parseStateV4((await coder.getWorkspaceBuildState(b.id)).toString('utf8')).resources, object.name);
        if (found) {
          held = { buildNumber: b.build_number, ...found };
          break;
        }
      } catch {
        // An unreadable older state only hides where the object was held.
      }
    }
    return {
      object: { ...object, ...(held?.namespace ? { namespace: held.namespace } : {}) },
      advice: outsideStateAdvice(object, held, { buildNumber: failed.build_number, rerun: req.rerun ?? 'run it again' }),
    };
  } catch {
    return undefined;
  }
}

/** A build right after the one read, started by us, with our transition and version (and, while it runs, our state), is an earlier attempt's. */
async function isOurEarlierBuild(coder: ActivityDeps['coder'], req: StateBuildRequest, latest: WorkspaceBuild): Promise<boolean> {
  if (latest.build_number !== req.read.buildNumber + 1) return false;
  if (latest.transition !== req.transition || latest.template_version_id !== req.templateVersionId) return false;
  // An owner's "Update" is a start on the active version, which is ours once promoted: only a build
  // our own token's user started can be an earlier attempt's, or theirs would be waited on as ours.
  if (latest.initiator_id && latest.initiator_id !== (await coderStep(req.step, req.subject, () => coder.currentUser())).id) return false;
  if (!req.state || !ACTIVE_JOB.has(latest.job.status)) return true;
  // Coder stores the sent state on the new build until its job completes.
  return sha256Hex(await coderStep(req.step, req.subject, () => coder.getWorkspaceBuildState(latest.id))) === req.state.sha256;
}

/** The bytes a build is to carry, read and checked against their sha256; nothing is sent to Coder here. */
export async function stateBytes(blobs: ActivityDeps['blobs'], req: StateBuildRequest): Promise<Buffer> {
  const ref = req.state!;
  const bytes = await blobStep(req.step, req.subject, () => blobs.get(ref.ref), req.blobHint ?? `Nothing was written to Coder: build #${req.read.buildNumber} is unchanged`);
  if (sha256Hex(bytes) !== ref.sha256) throw conflict(req.step, req.subject, `the blob ${ref.ref} does not hold sha256 ${ref.sha256.slice(0, 12)}…; nothing was written to Coder`);
  return bytes;
}

/**
 * The migration's one write: the migrated state and the new version in one build (a start, or a
 * stop on the new version for a workspace that stays stopped), onto the build that was backed up.
 */
export function makeBuildWithState(deps: ActivityDeps) {
  /** `reads`: keeps the ended build for the part of a combined step that checks it. */
  return async function buildWithState(input: BuildWithStateInput, reads?: StepReads): Promise<BuiltWithState> {
    const { purpose, ...req } = input;
    const build = await runStateBuildOnce(deps, {
      ...req,
      step: purpose === 'recover' ? 'recovery build' : 'migrated-state build',
      rerun: purpose === 'recover' ? `run \`wsmigrate recover ${req.subject}\` again (the same --template and --version)` : 'run the migration again',
    });
    if (reads) reads.endedBuild = build;
    return { buildId: build.id, buildNumber: build.build_number };
  };
}
