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
import { makeAssessHealth } from './assess-health';
import { cachedTemplateSourceLoader } from './template-source';

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

export interface DormantSkip {
  owner: string;
  workspace: string;
  id: string;
  since: string;
  /** Its owner is suspended: only an admin can make it active (absent from older activities, and when unknown). */
  ownerSuspended?: true;
  /** When Coder deletes it (its deleting_at); absent when the template never auto-deletes, and from older activities. */
  deletingAt?: string;
}

export interface FleetPage {
  /** Workspaces to migrate, by owner, then name. */
  items: FleetItem[];
  /**
   * Already migrated: the latest build succeeded on the target version and the health check calls its
   * state `migrated` (every protected object present as an earlier state held it). One on the target
   * version that is not (a claim a build forgot and made anew, a build running since the listing) is
   * in `items`: its own migration's preflight recovers it, waits for it or says why not.
   */
  alreadyDone: number;
  /** Left out by the filters (owners, name glob, status, exclude). */
  filteredOut: number;
  /** Prebuilt workspaces (Coder's prebuilds user owns them): left to Coder's reconciler, never migrated. */
  prebuilt: number;
  /** Running and dormant (fleet-progress.ts selectForFleet): skipped, never stopped or built; absent from older activities. */
  dormant?: DormantSkip[];
  /**
   * Whose latest migration ended needs-attention: a human restores them first; never retried by a fleet.
   * `dormant`: it ended so because Coder made it dormant after its stop (its memo's cause).
   */
  heldForAttention: (FleetItem & { dormant?: true })[];
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
/** Health checks of workspaces on the target version at a time (each reads its recent builds' states). */
const HEALTH_READS = 8;

/** Owner, then name, lower-case: an order no start or stop changes (Coder's own puts running workspaces first). */
const keyOf = (ws: { owner_name: string; name: string }) => `${ws.owner_name.toLowerCase()}/${ws.name.toLowerCase()}`;

/**
 * One page of the template's workspaces, sorted into "migrate", "done" and "filtered out". Only
 * names travel back: a page of a few hundred stays a few KB of workflow history.
 */
export function makeDiscoverFleetPage(deps: ActivityDeps, assessHealth = makeAssessHealth(deps, cachedTemplateSourceLoader(deps.coder))) {
  const { coder } = deps;
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
    const onTarget: FleetItem[] = [];
    const idOf = new Map<FleetItem, string>();
    let filteredOut = 0;
    let prebuilt = 0;
    const dormant: DormantSkip[] = [];
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
          ...(ws.dormant_at ? { dormantSince: ws.dormant_at } : {}),
        },
        input.filters,
        input.targetVersionId,
      );
      if (selection === 'migrate') (BLOCKED_JOB.has(ws.latest_build.job.status) ? blocked : items).push({ owner: ws.owner_name, workspace: ws.name });
      else if (selection === 'done') {
        const item = { owner: ws.owner_name, workspace: ws.name };
        onTarget.push(item);
        idOf.set(item, ws.id);
      }
      else if (selection === 'prebuilt') prebuilt++;
      else if (selection === 'dormant') {
        const suspended = await coder.userByName(ws.owner_id).then((u) => u.status === 'suspended', () => false);
        dormant.push({ owner: ws.owner_name, workspace: ws.name, id: ws.id, since: ws.dormant_at ?? '', ...(suspended ? { ownerSuspended: true as const } : {}), ...(ws.deleting_at ? { deletingAt: ws.deleting_at } : {}) });
      }
      else filteredOut++;
    }
    // On the target version is not yet migrated: only a healthy state counts as already migrated
    // (README, "Workspace health"); the rest go to their own migration, which recovers a damaged one.
    const healthy = await healthyOnTarget(onTarget, (item) =>
      assessHealth({ workspaceId: idOf.get(item) as string, subject: `${item.owner}/${item.workspace}`, targetVersionId: input.targetVersionId }),
    );
    const alreadyDone = healthy.size;
    blocked.push(...onTarget.filter((item) => !healthy.has(item)));
    // First on the page: a workspace whose last build failed may be one a guarded build left
    // unable to start (its owner is blocked until the fleet repairs it); so may one on the target
    // version that is not healthy.
    items.unshift(...blocked);
    const held = items.length > 0 ? await needingAttention(input.template) : new Map<string, HeldCause>();
    const heldForAttention = items.flatMap((i) => {
      const cause = held.get(workspaceWorkflowId(input.template, i.owner, i.workspace));
      if (cause === undefined) return [];
      return [cause.dormant ? { ...i, dormant: true as const } : i];
    });
    const nextOffset = start + page.workspaces.length;
    const last = page.workspaces[page.workspaces.length - 1];
    return {
      items: items.filter((i) => !held.has(workspaceWorkflowId(input.template, i.owner, i.workspace))),
      alreadyDone,
      filteredOut,
      prebuilt,
      ...(dormant.length ? { dormant } : {}),
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

/** The workspaces whose health is `migrated`, checked a few at a time (heartbeating: a page may hold hundreds). */
async function healthyOnTarget(items: readonly FleetItem[], health: (item: FleetItem) => Promise<{ health: string }>): Promise<Set<FleetItem>> {
  const healthy = new Set<FleetItem>();
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      if ((await health(item)).health === 'migrated') healthy.add(item);
      heartbeatIfInActivity({ healthChecked: next, of: items.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(HEALTH_READS, items.length) }, lane));
  return healthy;
}

function firstAfter(sorted: { owner_name: string; name: string }[], after: string): number {
  const i = sorted.findIndex((ws) => keyOf(ws) > after);
  return i === -1 ? sorted.length : i;
}

interface HeldCause {
  /** The run's memo says Coder made the workspace dormant after its stop (workspace-compensation.ts). */
  dormant: boolean;
}

/**
 * Workflow ids of the template's migrations whose latest run ended needs-attention (from the
 * WsmigratePhase search attribute), with why where its memo says. Outside a worker (no Temporal client) it finds none.
 */
async function needingAttention(template: string): Promise<Map<string, HeldCause>> {
  const held = new Map<string, HeldCause>();
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
    if (latest.typedSearchAttributes.get(WsmigratePhase) === 'needs-attention') held.set(wf.workflowId, { dormant: latest.memo?.cause === 'dormant' });
  }
  return held;
}
