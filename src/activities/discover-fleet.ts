import { Context } from '@temporalio/activity';
import type { FleetFilters } from '../domain/fleet-input';
import { selectForFleet } from '../domain/fleet-progress';
import { isPrebuiltWorkspace } from '../domain/prebuilt-workspaces';
import { workspaceWorkflowId } from '../domain/migration-input';
import type { FleetItem } from '../contracts/migrate-fleet';
import { WsmigratePhase } from '../contracts/search-attributes';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, coderStep } from './failures';
import { heartbeatIfInActivity } from './heartbeat';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';

export interface DiscoverFleetPageInput {
  organization: string;
  template: string;
  targetVersionId: string;
  filters: FleetFilters;
  offset: number;
  /** The last workspace (owner/name key) of the previous page: the next page starts after it, whatever moved meanwhile. */
  after?: string;
  pageSize: number;
}

export interface FleetPage {
  /** Workspaces to migrate, by owner, then name. */
  items: FleetItem[];
  /** Already on the target version: finished by an earlier run. */
  alreadyDone: number;
  /** Left out by the filters (owners, name glob, status, exclude). */
  filteredOut: number;
  /** Prebuilt workspaces (Coder's prebuilds user owns them): left to Coder's reconciler, never migrated. */
  prebuilt: number;
  /** Whose latest migration ended needs-attention: a human restores them first; never retried by a fleet. */
  heldForAttention: FleetItem[];
  nextOffset: number;
  /** Pass as `after` for the next page. */
  cursor?: string;
  /** The template's workspace count as Coder reported it on this page. */
  total: number;
  exhausted: boolean;
}

/** Full passes over Coder's listing before giving up on seeing every workspace once (each pass is a few requests). */
const LISTING_PASSES = 5;
const LIST_PAGE = 100;

const BLOCKED_JOB = new Set(['failed', 'canceled']);

/** Owner, then name, lower-case: an order no start or stop changes (Coder's own puts running workspaces first). */
const keyOf = (ws: { owner_name: string; name: string }) => `${ws.owner_name.toLowerCase()}/${ws.name.toLowerCase()}`;

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
    const all = await everyWorkspaceOnce(coder, input.template, subject);
    const start = input.after !== undefined ? firstAfter(all, input.after) : Math.min(input.offset, all.length);
    const page = { workspaces: all.slice(start, start + input.pageSize), count: all.length };
    const items: FleetItem[] = [];
    const blocked: FleetItem[] = [];
    let alreadyDone = 0;
    let filteredOut = 0;
    let prebuilt = 0;
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
          prebuilt: isPrebuiltWorkspace(ws),
        },
        input.filters,
        input.targetVersionId,
      );
      if (selection === 'migrate') (BLOCKED_JOB.has(ws.latest_build.job.status) ? blocked : items).push({ owner: ws.owner_name, workspace: ws.name });
      else if (selection === 'done') alreadyDone++;
      else if (selection === 'prebuilt') prebuilt++;
      else filteredOut++;
    }
    // First on the page: a workspace whose last build failed may be one a guarded build left
    // unable to start (its owner is blocked until the fleet repairs it).
    items.unshift(...blocked);
    const held = items.length > 0 ? await needingAttention(input.template) : new Set<string>();
    const heldForAttention = items.filter((i) => held.has(workspaceWorkflowId(input.template, i.owner, i.workspace)));
    const nextOffset = start + page.workspaces.length;
    const last = page.workspaces[page.workspaces.length - 1];
    return {
      items: items.filter((i) => !held.has(workspaceWorkflowId(input.template, i.owner, i.workspace))),
      alreadyDone,
      filteredOut,
      prebuilt,
      heldForAttention,
      nextOffset,
      ...(last ? { cursor: keyOf(last) } : input.after !== undefined ? { cursor: input.after } : {}),
      total: page.count,
      exhausted: page.workspaces.length === 0 || nextOffset >= page.count,
    };
  };
}

/**
 * Every workspace of the template exactly once, sorted by owner and name. Coder orders the listing
 * running-first (coderd/database/queries/workspaces.sql GetWorkspaces), so a workspace that starts or
 * stops while we page moves across pages: offset paging alone skips some and shows others twice.
 * Keyed by id, passes repeat until as many workspaces were seen as Coder counts.
 */
async function everyWorkspaceOnce(coder: ActivityDeps['coder'], template: string, subject: string) {
  const byId = new Map<string, Awaited<ReturnType<typeof coder.workspacesOfTemplatePage>>['workspaces'][number]>();
  let count = 0;
  for (let pass = 1; pass <= LISTING_PASSES; pass++) {
    for (let offset = 0; ; ) {
      const page = await coderStep('discovery', subject, () => coder.workspacesOfTemplatePage(template, { offset, limit: LIST_PAGE }));
      count = page.count;
      for (const ws of page.workspaces) byId.set(ws.id, ws);
      offset += page.workspaces.length;
      if (page.workspaces.length === 0 || offset >= page.count) break;
    }
    heartbeatIfInActivity({ pass, seen: byId.size, count });
    if (byId.size >= count) return [...byId.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  }
  throw ApplicationFailure.create({
    message: `discovery: ${subject}: saw ${byId.size} of ${count} workspaces after ${LISTING_PASSES} passes (workspaces keep moving in Coder's listing); trying again`,
    type: FailureType.busy,
  });
}

function firstAfter(sorted: { owner_name: string; name: string }[], after: string): number {
  const i = sorted.findIndex((ws) => keyOf(ws) > after);
  return i === -1 ? sorted.length : i;
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
