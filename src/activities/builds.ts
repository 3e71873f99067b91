import { builtBy } from '../domain/build-initiator';
import { ApplicationFailure } from '@temporalio/common';
import { isCoderApiError, type WorkspaceBuild } from '../adapters/coder';
import type { CoderApi } from './ports';
import { downgradeHazardsAgainst, holdsMigratedEntries } from '../domain/downgrade-guard';
import { rootDeclarationsOf } from './template-facts';
import { parseStateV4, StateFormatError } from '../domain/state';
import { FailureType, coderStep, jobOutcomeText, refuse } from './failures';
import { cachedTemplateSourceLoader, type LoadTemplateSource } from './template-source';
import { heartbeatedBuildId, heartbeatIfInActivity } from './heartbeat';
import type { StepReads } from './step-reads';

export interface BuildRequest {
  workspaceId: string;
  subject: string; // owner/workspace, for messages
  transition: 'start' | 'stop';
  /** Pin the version: a build without it reuses the previous build's version, which is the runbook's hazard. */
  templateVersionId?: string;
  /** Builds numbered above this one were made by this migration (or an earlier attempt of this step). */
  afterBuildNumber: number;
  timeoutMs: number;
}

/**
 * Starts the build unless an earlier attempt already did, then waits for it. Safe to run twice:
 * a retried activity finds its own build by number, transition and version instead of making another.
 */
export async function runBuildOnce(coder: CoderApi, req: BuildRequest, reads?: StepReads): Promise<WorkspaceBuild> {
  const step = `${req.transition} build`;
  const ws = await workspaceUnlessDeleted(coder, step, req.subject, req.workspaceId, req.afterBuildNumber);
  const latest = ws.latest_build;
  let build: WorkspaceBuild;
  if (latest.build_number > req.afterBuildNumber) {
    // A newer build is ours only when an earlier attempt of this step made it: an owner's stop (the first half of
    // "Update and Restart") or Coder's autostop has the same shape, and taking it for ours would back up what
    // their next build leaves behind.
    const ours = heartbeatedBuildId() === latest.id || (await isOurRetriedBuild(coder, req, latest));
    if (!ours) throw builtMeanwhile(step, req.subject, latest, req.afterBuildNumber);
    build = latest;
  } else {
    const state = await coderStep(step, req.subject, () => coder.getWorkspaceBuildState(latest.id));
    await refuseDowngrade(coder, step, req.subject, state, req.templateVersionId ?? latest.template_version_id);
    try {
      build = await coderStep(step, req.subject, () =>
        coder.createWorkspaceBuild(
          req.workspaceId,
          {
            transition: req.transition,
            ...(req.templateVersionId ? { template_version_id: req.templateVersionId } : {}),
          },
          // Read above, only reads since: the client need not read the workspace again to know which builds are newer.
          { before: ws },
        ),
      );
    } catch (err) {
      // 409 that did not clear (someone's delete, at once; another build, after a few waits): theirs stands.
      if (err instanceof ApplicationFailure && err.type === 'CoderApi.conflict') throw await builtMeanwhileOrDeleted(coder, step, req);
      throw err;
    }
    heartbeatIfInActivity({ buildId: build.id });
  }
  const made = build;
  const done = await coderStep(step, req.subject, () =>
    coder.waitForBuild(made.id, {
      timeoutMs: req.timeoutMs,
      // The build as Coder just answered it: the wait sleeps before its first read.
      first: made,
      onPoll: (b: WorkspaceBuild) => heartbeatIfInActivity({ buildId: b.id, status: b.job.status }),
    }),
  ).catch((err: unknown) => {
    // A wait that gave up (a job stuck in Coder's queue, Coder down) leaves our build queued or running: the
    // failure names it, or the compensation takes our own stop for someone else's build, leaves it as it is
    // and the workspace ends stopped once the stop runs, under a run that says "restored".
    throw namingBuild(err, made);
  });
  if (done.job.status !== 'succeeded') {
    throw ApplicationFailure.create({
      message: `${step} #${done.build_number} of ${req.subject} ended ${done.job.status}: ${jobOutcomeText(done.job)}`,
      type: FailureType.buildFailed,
      nonRetryable: true,
      // The compensation must know this failed build for ours (else it takes it for someone else's and leaves it).
      details: [{ buildId: done.id, buildNumber: done.build_number }],
    });
  }
  if (reads) reads.endedBuild = done;
  return done;
}

/** The same failure (message, type, retryability), carrying the build this step made. */
function namingBuild(err: unknown, build: WorkspaceBuild): ApplicationFailure {
  const e = err as Error;
  return ApplicationFailure.create({
    message: e?.message ?? String(err),
    type: err instanceof ApplicationFailure ? (err.type ?? undefined) : e?.name,
    nonRetryable: err instanceof ApplicationFailure ? err.nonRetryable === true : false,
    details: [{ buildId: build.id, buildNumber: build.build_number }],
    cause: e instanceof Error ? e : undefined,
  });
}

/** Right after the one read, our transition and version, started by this token's user: an attempt that died before its first heartbeat. */
async function isOurRetriedBuild(coder: CoderApi, req: BuildRequest, latest: WorkspaceBuild): Promise<boolean> {
  if (latest.build_number !== req.afterBuildNumber + 1 || latest.transition !== req.transition) return false;
  if (req.templateVersionId !== undefined && latest.template_version_id !== req.templateVersionId) return false;
  const me = await coderStep(`${req.transition} build`, req.subject, () => coder.currentUser());
  return latest.initiator_id === me.id;
}

/** Coder's 410 for a deleted workspace (GET /workspaces/{id} without include_deleted, coderd/workspaces.go). */
export function isWorkspaceGone(err: unknown): boolean {
  return isCoderApiError(err, 'not-found') && err.status === 410;
}

function deletedMeanwhile(step: string, subject: string, read: number): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${step}: ${subject}: the workspace was deleted after build #${read}, the one this step read; nothing was built`,
    type: FailureType.builtMeanwhile,
    nonRetryable: true,
  });
}

/**
 * The workspace a build step is about to build, read first. One deleted since the step's read (its
 * owner's delete ran to its end) is someone else's build too: the round ends and the next preflight
 * says so; nothing is built on it, which Coder before 2.28 would have taken.
 */
export async function workspaceUnlessDeleted(coder: CoderApi, step: string, subject: string, workspaceId: string, read: number) {
  try {
    return await coder.workspace(workspaceId);
  } catch (err) {
    if (isWorkspaceGone(err)) throw deletedMeanwhile(step, subject, read);
    return coderStep(step, subject, () => Promise.reject(err));
  }
}

/** Names the build that stood in the way; a workspace already gone (410) was deleted by it. */
async function builtMeanwhileOrDeleted(coder: CoderApi, step: string, req: BuildRequest): Promise<ApplicationFailure> {
  try {
    return builtMeanwhile(step, req.subject, (await coder.workspace(req.workspaceId)).latest_build, req.afterBuildNumber);
  } catch (err) {
    if (!isWorkspaceGone(err)) throw err;
    return deletedMeanwhile(step, req.subject, req.afterBuildNumber);
  }
}

const loaders = new WeakMap<CoderApi, LoadTemplateSource>();

/**
 * Someone else (an owner, the dashboard, Coder's own autostart/autostop) built the workspace after
 * the build this step read. Nothing is written over their build: the workflow reads again and starts over.
 */
export function builtMeanwhile(step: string, subject: string, latest: WorkspaceBuild, read: number | string): ApplicationFailure {
  return ApplicationFailure.create({
    message:
      `${step}: ${subject}: build #${latest.build_number} (${latest.transition}, ${latest.job.status}) was started by ${builtBy({ initiator: latest.initiator_name, reason: latest.reason })} ` +
      `after ${typeof read === 'number' ? `build #${read}, the one this step read` : read}; nothing was written over it`,
    type: FailureType.builtMeanwhile,
    nonRetryable: true,
  });
}

/**
 * The plan guard's downgrade rule, for every build wsmigrate starts: a workspace whose state is
 * migrated (holds _v1 types) is never built with a version that still declares the old types.
 * `bytes` is the state the build will run on; the version's source is downloaded only when it is migrated.
 */
export async function refuseDowngrade(coder: CoderApi, step: string, subject: string, bytes: Buffer, versionId: string): Promise<void> {
  const hazards = await downgradeHazards(coder, subject, bytes, versionId);
  if (hazards.length > 0) {
    throw refuse(
      step,
      subject,
      `template version ${versionId} is older than this workspace's migrated state (${hazards.join('; ')}). ` +
        'Build it with the migrated (_v1) version instead. Archiving the pre-migration versions only hides them: Coder still builds an archived version through the API.',
    );
  }
}

/** What a build of `versionId` on the state `bytes` would destroy: each migrated entry whose old type the version declares (none for an unmigrated or unreadable state). */
export async function downgradeHazards(coder: CoderApi, subject: string, bytes: Buffer, versionId: string): Promise<string[]> {
  if (bytes.length === 0) return [];
  let resources;
  try {
    resources = parseStateV4(bytes.toString('utf8')).resources;
  } catch (err) {
    if (err instanceof StateFormatError) return []; // not ours to judge here: preflight refuses unreadable state
    throw err;
  }
  if (!holdsMigratedEntries(resources)) return [];
  let load = loaders.get(coder);
  if (!load) {
    load = cachedTemplateSourceLoader(coder);
    loaders.set(coder, load);
  }
  const source = await load(versionId, subject);
  return downgradeHazardsAgainst(resources, rootDeclarationsOf(source.terraform));
}
