import { coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface LatestBuildInput {
  workspaceId: string;
  subject: string;
}

/** The workspace's latest build, as a person would name it: no state, no logs. */
export interface LatestBuild {
  id: string;
  buildNumber: number;
  transition: string;
  jobStatus: string;
  templateVersionId: string;
  templateVersionName?: string;
  initiator?: string;
  /** Coder's build reason (autostart, dashboard, …), when it gave one. */
  reason?: string;
  /** When its job was created (Coder's time). */
  createdAt: string;
}

/**
 * One read of the workspace: which build is its latest now (what a gate's plan may have been overtaken by).
 * A deleted workspace too: without `include_deleted` Coder answers 410 for it (coderd/workspaces.go
 * `workspace`), and a gate's watch gave up there, leaving the plan under the gate reading as if it
 * would still be applied; with it, its latest build is the delete, which the gate then names.
 */
export function makeReadLatestBuild({ coder }: ActivityDeps) {
  return async function readLatestBuild(input: LatestBuildInput): Promise<LatestBuild> {
    const b = (await coderStep('latest build', input.subject, () => coder.workspace(input.workspaceId, { includeDeleted: true }))).latest_build;
    return {
      id: b.id,
      buildNumber: b.build_number,
      transition: b.transition,
      jobStatus: b.job.status,
      templateVersionId: b.template_version_id,
      ...(b.template_version_name ? { templateVersionName: b.template_version_name } : {}),
      ...(b.initiator_name ? { initiator: b.initiator_name } : {}),
      ...(b.reason ? { reason: b.reason } : {}),
      createdAt: b.job.created_at,
    };
  };
}
