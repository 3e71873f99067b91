import type { CoderApi } from '../activities/ports';
import type { BlobStore } from '../adapters/blob-store';
import type { WorkspaceBuild } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import { isTerraformSource, readTar } from '../adapters/template-tar';
import { downgradeHazardsAgainst, oldTypeHazardsAgainst, rootManagedDeclarations } from '../domain/downgrade-guard';
import { parseStateV4 } from '../domain/state';
import { parametersLost } from '../domain/build-parameters';

/** How many recent builds are searched for the one the backup was taken from. */
const BUILDS_SEARCHED = 25;

export interface RestorePlan {
  workspace: string;
  workspaceId: string;
  /** The latest build when the plan was made: the restore builds on top of it only if it is still the latest. */
  latestBuildId: string;
  buildNumber: number;
  backupRef: string;
  currentSha256: string;
  /** True when Coder already holds exactly the backup: nothing to do. */
  alreadyRestored: boolean;
  /** The build the restore runs: the backup's own transition and version, carrying its bytes. */
  target: { transition: 'start' | 'stop'; templateVersionId: string; fromBuildNumber?: number };
  /**
   * Parameter values the build the backup was taken from had and the latest build lost (a start on a
   * version without the parameter drops its value): given back, else Coder resolves the default and a
   * claim sized by it may shrink, which the kubernetes provider answers with a new, empty claim.
   */
  parameters?: { name: string; value: string }[];
}

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

const ACTIVE_JOB = new Set(['pending', 'running', 'canceling']);

type RestoreCoder = Pick<CoderApi, 'workspaceByOwnerAndName' | 'workspace' | 'workspaceBuilds' | 'getWorkspaceBuildState' | 'createWorkspaceBuild' | 'waitForBuild' | 'templateVersion' | 'downloadFile' | 'workspaceBuildParameters'>;

/**
 * Why building these state entries with this version would lose an object, one line each: a migrated
 * (`_v1`) entry on a version that declares only its old type (the version plans the `_v1` object away:
 * the volume is destroyed), and an old-type entry on a version that declares only its `_v1` twin (the
 * object is forgotten or destroyed and created again, empty). The same rule the workflows' builds
 * follow (activities/builds.ts refuseDowngrade), in both directions, for the by-hand restore.
 */
async function versionHazards(coder: RestoreCoder, resources: ReturnType<typeof parseStateV4>['resources'], versionId: string): Promise<string[]> {
  const version = await coder.templateVersion(versionId);
  const archive = await readTar(await coder.downloadFile(version.job.file_id));
  const declared = rootManagedDeclarations(archive.filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') })));
  return [...downgradeHazardsAgainst(resources, declared), ...oldTypeHazardsAgainst(resources, declared)];
}

/** The newest build that holds exactly these bytes: the one the backup was read from (Coder keeps each build's state). */
async function buildHolding(coder: RestoreCoder, workspaceId: string, sha256: string): Promise<WorkspaceBuild | undefined> {
  const builds = await coder.workspaceBuilds(workspaceId, { limit: BUILDS_SEARCHED });
  for (const b of builds) {
    if (b.transition === 'delete' || b.job.status !== 'succeeded') continue;
    if (sha256Hex(await coder.getWorkspaceBuildState(b.id)) === sha256) return b;
  }
  return undefined;
}

/**
 * The by-hand restore an operator runs when a migration ended `needs-attention`: one build that
 * carries the backup's bytes on the version and transition of the build it was taken from (as the
 * compensation does), so Coder never holds the old types under a `_v1` version, not even for a moment.
 * It refuses anything that could put the wrong state on the wrong workspace: a backup that fails its
 * hash or is not a v4 state, a state of another lineage (another workspace's backup), or a build in
 * progress. `override` names the version and transition when no recent build holds the backup.
 */
export async function planRestore(
  coder: RestoreCoder,
  blobs: BlobStore,
  owner: string,
  workspace: string,
  backupRef: string,
  override: { transition?: 'start' | 'stop'; templateVersionId?: string } = {},
): Promise<RestorePlan & { bytes: Buffer }> {
  const subject = `${owner}/${workspace}`;
  const bytes = await blobs.get(backupRef); // verifies the sha256
  const backup = parseStateV4(bytes.toString('utf8'));
  const ws = await coder.workspaceByOwnerAndName(owner, workspace);
  const latest = ws.latest_build;
  if (ACTIVE_JOB.has(latest.job.status)) {
    throw new RestoreRefused(`${subject} has build #${latest.build_number} ${latest.job.status}; wait until it finishes, then run this again`);
  }
  const current = await coder.getWorkspaceBuildState(latest.id);
  const currentSha256 = sha256Hex(current);
  const backupSha256 = sha256Hex(bytes);
  const base = { workspace: subject, workspaceId: ws.id, latestBuildId: latest.id, buildNumber: latest.build_number, backupRef, currentSha256, bytes };
  if (currentSha256 === backupSha256) {
    return { ...base, alreadyRestored: true, target: { transition: latest.transition === 'start' ? 'start' : 'stop', templateVersionId: latest.template_version_id } };
  }
  const currentLineage = current.length > 0 ? parseStateV4(current.toString('utf8')).lineage : '';
  if (currentLineage && currentLineage !== backup.lineage) {
    throw new RestoreRefused(
      `the backup's lineage ${backup.lineage} is not ${subject}'s (${currentLineage}): it is another workspace's state. Check the backup ref in the workflow's status`,
    );
  }
  const source = await buildHolding(coder, ws.id, backupSha256);
  const transition = override.transition ?? (source ? (source.transition === 'start' ? 'start' : 'stop') : undefined);
  const templateVersionId = override.templateVersionId ?? source?.template_version_id;
  if (!transition || !templateVersionId) {
    throw new RestoreRefused(
      `none of ${subject}'s last ${BUILDS_SEARCHED} builds holds this backup, so the version it belongs to is unknown: pass --version <the template version id it was taken under> and --transition start|stop`,
    );
  }
  // A stopped workspace's backup (option A backs up its own stop) put back by a stop on top of a start made since: that
  // stop plans only what the backup holds, so what the start created (the deployment, its pod, still mounting the home
  // volume) stays running outside the state, and the next start fails on it (AlreadyExists). Hazard drive, round 2.
  const createdSince = transition === 'stop' && latest.transition === 'start' && mayHaveRun(latest.job) ? managedNotIn(current, backup.resources) : [];
  if (createdSince.length > 0) {
    throw new RestoreRefused(
      `${subject} was started after the backup was taken (build #${latest.build_number}, start by ${latest.initiator_name ?? 'someone'}, ${latest.job.status}), and the backup lacks what that start holds (${createdSince.join(', ')}): ` +
        `a stop carrying it would leave them (its pod, still mounting the home volume) running outside the state, and the next start would fail on them. Nothing was written. ` +
        `Stop the workspace first (coder stop ${subject}: that stop removes them with the state Coder holds now), then run this again`,
    );
  }
  const hazards = await versionHazards(coder, backup.resources, templateVersionId);
  if (hazards.length > 0) {
    const taken = source && source.template_version_id !== templateVersionId ? ` The backup was taken from build #${source.build_number}, on version ${source.template_version_id}: leave --version out to build it there.` : '';
    throw new RestoreRefused(
      `the backup does not fit version ${templateVersionId}: ${hazards.join('; ')}. Nothing was written.${taken} ` +
        `A backup taken before the migration (old types) goes on the old version; the migrated one (_v1 types) on the migrated version`,
    );
  }
  const fromSource = source && source.template_version_id === templateVersionId;
  // What the latest build lost is given back (parametersLost).
  let parameters: { name: string; value: string }[] = [];
  if (fromSource && source.id !== latest.id) {
    const [had, now] = await Promise.all([coder.workspaceBuildParameters(source.id), coder.workspaceBuildParameters(latest.id)]);
    parameters = parametersLost(had, now);
  }
  return {
    ...base,
    alreadyRestored: false,
    target: { transition, templateVersionId, ...(fromSource ? { fromBuildNumber: source.build_number } : {}) },
    ...(parameters.length > 0 ? { parameters } : {}),
  };
}

/** The managed resources (root and module addresses) of Coder's current state that the backup does not hold. */
function managedNotIn(current: Buffer, backup: readonly { module?: string; mode: string; type: string; name: string }[]): string[] {
  if (current.length === 0) return [];
  const address = (r: { module?: string; type: string; name: string }) => `${r.module ? `${r.module}.` : ''}${r.type}.${r.name}`;
  const had = new Set(backup.filter((r) => r.mode === 'managed').map(address));
  return parseStateV4(current.toString('utf8'))
    .resources.filter((r) => r.mode === 'managed' && !had.has(address(r)))
    .map(address);
}

/** A job a provisioner may have applied: it ended, and a canceled one only if a daemon had taken it (started_at). */
function mayHaveRun(job: { status: string; started_at?: string | null }): boolean {
  if (job.status === 'canceled') return Boolean(job.started_at);
  return job.status === 'succeeded' || job.status === 'failed';
}

/** Runs the restore build and waits for it; throws when someone built meanwhile or the build did not succeed. */
export async function applyRestore(coder: RestoreCoder, plan: RestorePlan & { bytes: Buffer }, opts: { timeoutMs?: number } = {}): Promise<WorkspaceBuild> {
  const now = (await coder.workspace(plan.workspaceId)).latest_build;
  if (now.id !== plan.latestBuildId || ACTIVE_JOB.has(now.job.status)) {
    throw new RestoreRefused(`${plan.workspace} was built meanwhile (build #${now.build_number}, ${now.job.status}); nothing was written over it. Run this again once it is idle`);
  }
  const build = await coder.createWorkspaceBuild(plan.workspaceId, {
    transition: plan.target.transition,
    template_version_id: plan.target.templateVersionId,
    state: plan.bytes,
    ...(plan.parameters?.length ? { rich_parameter_values: plan.parameters } : {}),
  });
  const done = await coder.waitForBuild(build.id, { timeoutMs: opts.timeoutMs ?? 30 * 60_000 });
  if (done.job.status !== 'succeeded') {
    throw new Error(`the restore build #${done.build_number} of ${plan.workspace} ended ${done.job.status}${done.job.error ? `: ${done.job.error}` : ''}; it ran on the backed-up state, which Coder keeps on that build (coder state pull ${plan.workspace} --build ${done.build_number})`);
  }
  return done;
}
