import { Context } from '@temporalio/activity';
import type { FleetFilters } from '../domain/fleet-input';
import { selectForFleet } from '../domain/fleet-progress';
import { workspaceWorkflowId } from '../domain/migration-input';
import { WsmigratePhase } from '../contracts/search-attributes';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';

export interface DiscoverFleetPageInput {
  organization: string;
  template: string;
  targetVersionId: string;
  filters: FleetFilters;
  offset: number;
  pageSize: number;
}

export interface FleetItem {
  owner: string;
  workspace: string;
}

export interface FleetPage {
  /** Workspaces to migrate, in Coder's order (owner, then name). */
  items: FleetItem[];
  /** Already on the target version: finished by an earlier run. */
  alreadyDone: number;
  /** Left out by the filters (owners, name glob, status, exclude). */
  filteredOut: number;
  /** Whose latest migration ended needs-attention: a human restores them first; never retried by a fleet. */
  heldForAttention: FleetItem[];
  nextOffset: number;
  /** The template's workspace count as Coder reported it on this page. */
  total: number;
  exhausted: boolean;
}

/**
 * One page of the template's workspaces, sorted into "migrate", "done" and "filtered out". Only
 * names travel back: a page of a few hundred stays a few KB of workflow history.
 */
export function makeDiscoverFleetPage({ coder }: ActivityDeps) {
  return async function discoverFleetPage(input: DiscoverFleetPageInput): Promise<FleetPage> {
    const subject = `template ${input.organization}/${input.template}`;
    if (input.offset === 0) {
      // Before the fleet changes anything (with --version it skips the template's own preflight).
      const t = await coderStep('discovery', subject, () => coder.templateByName(input.organization, input.template));
      await refuseUnlessTokenMayMigrate(coder, subject, { organizationId: t.organization_id, organization: input.organization, templateId: t.id, template: input.template });
    }
    const page = await coderStep('discovery', subject, () => coder.workspacesOfTemplatePage(input.template, { offset: input.offset, limit: input.pageSize }));
    const items: FleetItem[] = [];
    let alreadyDone = 0;
    let filteredOut = 0;
    for (const ws of page.workspaces) {
      const selection = selectForFleet(
        {
          id: ws.id,
          owner: ws.owner_name,
          name: ws.name,
          status: ws.latest_build.status,
          latestVersionId: ws.latest_build.template_version_id,
          latestTransition: ws.latest_build.transition,
          latestJobStatus: ws.latest_build.job.status,
        },
        input.filters,
        input.targetVersionId,
      );
      if (selection === 'migrate') items.push({ owner: ws.owner_name, workspace: ws.name });
      else if (selection === 'done') alreadyDone++;
      else filteredOut++;
    }
    const held = items.length > 0 ? await needingAttention(input.template) : new Set<string>();
    const heldForAttention = items.filter((i) => held.has(workspaceWorkflowId(input.template, i.owner, i.workspace)));
    const nextOffset = input.offset + page.workspaces.length;
    return {
      items: items.filter((i) => !held.has(workspaceWorkflowId(input.template, i.owner, i.workspace))),
      alreadyDone,
      filteredOut,
      heldForAttention,
      nextOffset,
      total: page.count,
      exhausted: page.workspaces.length === 0 || nextOffset >= page.count,
    };
  };
}

/**
 * Workflow ids of the template's migrations whose latest run ended needs-attention (from the
 * WsmigratePhase search attribute). Outside a worker (no Temporal client) it finds none.
 */
async function needingAttention(template: string): Promise<Set<string>> {
  const held = new Set<string>();
  let client;
  try {
    client = Context.current().client;
  } catch {
    return held;
  }
  const query = `WorkflowType = 'migrateWorkspace' AND WsmigrateTemplate = '${template}' AND WsmigratePhase = 'needs-attention'`;
  for await (const wf of client.workflow.list({ query })) {
    if (held.has(wf.workflowId)) continue;
    // A later run of the same id (a by-hand retry) may have migrated it since: only the latest run counts.
    const latest = await client.workflow.getHandle(wf.workflowId).describe();
    if (latest.typedSearchAttributes.get(WsmigratePhase) === 'needs-attention') held.add(wf.workflowId);
  }
  return held;
}
