import type { CoderClient } from './client';
import type { Workspace, WorkspaceBuild } from './schemas';
import {
  assessWorkspaceHealth,
  buildsToCheckForDeletes,
  destroyedAddressesInLog,
  type BuildSnapshot,
  type WorkspaceHealth,
} from '../../domain/workspace-health';

/** How many recent builds the health check reads; a loss older than this is out of sight. */
export const DEFAULT_HEALTH_DEPTH = 10;

export interface HealthReadOptions {
  depth?: number;
  /** Config addresses marked `# wsmigrate:protect` in the template (PVCs and PVs are always protected). */
  annotatedAddresses?: readonly string[];
  /** Template versions whose source uses the _v1 types. */
  v1VersionIds?: readonly string[];
  /** States the caller read just before, by build id, with nothing written since: not read again. */
  statesRead?: ReadonlyMap<string, Buffer>;
}

const ACTIVE = new Set(['pending', 'running', 'canceling']);

function snapshot(b: WorkspaceBuild): BuildSnapshot {
  return {
    id: b.id,
    number: b.build_number,
    transition: b.transition,
    jobStatus: b.job.status,
    templateVersionId: b.template_version_id,
    at: b.job.completed_at ?? b.job.created_at,
  };
}

/**
 * Reads the workspace's recent builds, each one's state, and the logs of builds where a protected
 * entry went missing, then classifies. Reads only; state bytes stay in this function.
 */
export async function readWorkspaceHealth(
  coder: Pick<CoderClient, 'workspaceBuilds' | 'getWorkspaceBuildState' | 'workspaceBuildLogs'>,
  ws: Pick<Workspace, 'id' | 'latest_build'>,
  opts: HealthReadOptions = {},
): Promise<WorkspaceHealth> {
  if (ACTIVE.has(ws.latest_build.job.status)) return assessWorkspaceHealth({ builds: [snapshot(ws.latest_build)] });
  const listed = await coder.workspaceBuilds(ws.id, { limit: opts.depth ?? DEFAULT_HEALTH_DEPTH });
  const builds: BuildSnapshot[] = [];
  for (const b of listed) {
    const s = snapshot(b);
    try {
      s.state = { text: (opts.statesRead?.get(b.id) ?? (await coder.getWorkspaceBuildState(b.id))).toString('utf8') };
    } catch (err) {
      s.state = { error: `the state of build #${b.build_number} could not be read: ${(err as Error).message}` };
    }
    builds.push(s);
  }
  const annotatedAddresses = opts.annotatedAddresses ?? [];
  const destroyedByBuild = new Map<number, string[]>();
  for (const number of buildsToCheckForDeletes(builds, annotatedAddresses)) {
    const build = builds.find((b) => b.number === number);
    if (!build) continue;
    const logs = await coder.workspaceBuildLogs(build.id);
    destroyedByBuild.set(number, destroyedAddressesInLog(logs.map((l) => l.output)));
  }
  return assessWorkspaceHealth({ builds, annotatedAddresses, destroyedByBuild, ...(opts.v1VersionIds ? { v1VersionIds: opts.v1VersionIds } : {}) });
}
