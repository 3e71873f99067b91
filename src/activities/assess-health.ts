import type { WorkspaceHealth } from '../domain/workspace-health';
import type { Workspace } from '../adapters/coder';
import { coderStep } from './failures';
import { isWorkspaceGone } from './builds';
import { refuseDeleted } from './deleted-workspace';
import type { ActivityDeps } from './ports';
import { readWorkspaceHealth } from '../adapters/coder/read-workspace-health';
import { protectionOf } from './template-facts';
import type { LoadTemplateSource } from './template-source';
import type { StepReads } from './step-reads';

export interface AssessHealthInput {
  workspaceId: string;
  subject: string;
  /** The _v1 version: its annotations say what is protected, and only it counts as migrated. */
  targetVersionId: string;
}

/** Classifies the workspace from its recent builds and states (reads only); no state bytes leave the activity. */
export function makeAssessHealth(deps: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  /** `reads`: the workspace and states the preflight just read, with no write since (else read here). */
  return async function assessHealth(input: AssessHealthInput, reads?: StepReads): Promise<WorkspaceHealth> {
    const step = 'health check';
    const source = await loadTemplateSource(input.targetVersionId, input.subject);
    const { annotatedAddresses } = protectionOf(source.terraform);
    const known = reads?.workspace?.id === input.workspaceId ? reads.workspace : undefined;
    // Deleted since the caller found it (410), or its builds listed after the preflight's read end in a
    // delete: a delete's destroys are no damage to recover, and there is nothing left to migrate.
    const refuseAsDeleted = async (): Promise<never> => {
      const gone = await coderStep(step, input.subject, () => deps.coder.workspace(input.workspaceId, { includeDeleted: true }));
      throw refuseDeleted(step, input.subject, gone.latest_build);
    };
    const readWorkspace = async (): Promise<Workspace> => {
      try {
        return await deps.coder.workspace(input.workspaceId);
      } catch (err) {
        return isWorkspaceGone(err) ? refuseAsDeleted() : Promise.reject(err);
      }
    };
    const ws = known ?? (await coderStep(step, input.subject, readWorkspace));
    const health = await coderStep(step, input.subject, () =>
      readWorkspaceHealth(deps.coder, ws, { annotatedAddresses, v1VersionIds: [input.targetVersionId], ...(known && reads?.states ? { statesRead: reads.states } : {}) }),
    );
    // A failed or canceled delete leaves the workspace in place: judged as any other build.
    if (health.latest?.transition === 'delete' && health.latest.jobStatus !== 'failed' && health.latest.jobStatus !== 'canceled') return refuseAsDeleted();
    return ws.dormant_at ? { ...health, dormantSince: ws.dormant_at } : health;
  };
}
