import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceBuild } from '../adapters/coder';
import type { CoderApi } from './ports';
import { downgradeHazardsAgainst } from '../domain/downgrade-guard';
import { rootDeclarationsOf } from './template-facts';
import { parseStateV4, StateFormatError } from '../domain/state';
import { FailureType, coderStep, conflict, refuse } from './failures';
import { cachedTemplateSourceLoader, type LoadTemplateSource } from './template-source';
import { heartbeatIfInActivity } from './heartbeat';

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
export async function runBuildOnce(coder: CoderApi, req: BuildRequest): Promise<WorkspaceBuild> {
  const step = `${req.transition} build`;
  const ws = await coderStep(step, req.subject, () => coder.workspace(req.workspaceId));
  const latest = ws.latest_build;
  let build: WorkspaceBuild;
  if (latest.build_number > req.afterBuildNumber) {
    const ours =
      latest.transition === req.transition &&
      (req.templateVersionId === undefined || latest.template_version_id === req.templateVersionId);
    if (!ours) {
      throw conflict(
        step,
        req.subject,
        `build #${latest.build_number} (${latest.transition}) was started by ${latest.initiator_name ?? 'someone else'} while the migration ran; ` +
          'stop here so a human can look before anything else changes',
      );
    }
    build = latest;
  } else {
    await refuseDowngrade(coder, req, latest.id, req.templateVersionId ?? latest.template_version_id);
    build = await coderStep(step, req.subject, () =>
      coder.createWorkspaceBuild(req.workspaceId, {
        transition: req.transition,
        ...(req.templateVersionId ? { template_version_id: req.templateVersionId } : {}),
      }),
    );
  }
  const done = await coderStep(step, req.subject, () =>
    coder.waitForBuild(build.id, {
      timeoutMs: req.timeoutMs,
      onPoll: (b: WorkspaceBuild) => heartbeatIfInActivity({ buildId: b.id, status: b.job.status }),
    }),
  );
  if (done.job.status !== 'succeeded') {
    throw ApplicationFailure.create({
      message: `${step} #${done.build_number} of ${req.subject} ended ${done.job.status}: ${done.job.error ?? 'no error text'}`,
      type: FailureType.buildFailed,
      nonRetryable: true,
    });
  }
  return done;
}

const loaders = new WeakMap<CoderApi, LoadTemplateSource>();

/**
 * The plan guard's downgrade rule, for every build wsmigrate starts: a workspace whose state is
 * migrated (holds _v1 types) is never built with a version that still declares the old types.
 * Reads the state first and downloads the version's source only when something is migrated.
 */
async function refuseDowngrade(coder: CoderApi, req: BuildRequest, latestBuildId: string, versionId: string): Promise<void> {
  const step = `${req.transition} build`;
  const bytes = await coderStep(step, req.subject, () => coder.getWorkspaceBuildState(latestBuildId));
  if (bytes.length === 0) return;
  let resources;
  try {
    resources = parseStateV4(bytes.toString('utf8')).resources;
  } catch (err) {
    if (err instanceof StateFormatError) return; // not ours to judge here: preflight refuses unreadable state
    throw err;
  }
  if (!resources.some((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_') && /_v\d+(beta\d+)?$/.test(r.type))) return;
  let load = loaders.get(coder);
  if (!load) {
    load = cachedTemplateSourceLoader(coder);
    loaders.set(coder, load);
  }
  const source = await load(versionId, req.subject);
  const hazards = downgradeHazardsAgainst(resources, rootDeclarationsOf(source.terraform));
  if (hazards.length > 0) {
    throw refuse(
      step,
      req.subject,
      `template version ${versionId} is older than this workspace's migrated state (${hazards.join('; ')}). ` +
        'Build it with the migrated (_v1) version instead; archive the pre-migration versions so nobody else can pick them.',
    );
  }
}
