/**
 * Which templates a fleet, an organization run or a schedule's windows migrate: what decides that
 * two of them would migrate the same workspaces behind each other's gates and failure budget.
 */
export interface Coverage {
  organization: string;
  /** `all`: every template of the organization that needs it (`--all-templates`). */
  templates: readonly string[] | 'all';
  /**
   * The workers' task queue. An organization's name means something only within one Coder
   * deployment, and a task queue's workers talk to one; so `all` reaches only runs on its own queue.
   */
  taskQueue?: string;
}

/** The coverage of a run of `workflowType` started with `input`; none for a workflow that migrates no fleet. */
export function coverageOf(workflowType: string | undefined, input: unknown, taskQueue?: string): Coverage | undefined {
  const i = (input ?? {}) as { organization?: unknown; template?: unknown; templates?: unknown; allTemplates?: unknown };
  // The inputs' own default organization.
  const organization = typeof i.organization === 'string' ? i.organization : 'coder';
  const queue = taskQueue ? { taskQueue } : {};
  if (workflowType === 'migrateFleet') return typeof i.template === 'string' ? { organization, templates: [i.template], ...queue } : undefined;
  if (workflowType !== 'migrateOrganization') return undefined;
  const named = Array.isArray(i.templates) ? i.templates.filter((t): t is string => typeof t === 'string') : [];
  return { organization, templates: i.allTemplates === true || named.length === 0 ? 'all' : named, ...queue };
}

/** The templates both migrate (`all` when both take every one); empty when they share none. */
export function sharedTemplates(a: Coverage, b: Coverage): readonly string[] | 'all' {
  if (a.organization !== b.organization) return [];
  const wide = a.templates === 'all' || b.templates === 'all';
  if (wide && a.taskQueue !== undefined && b.taskQueue !== undefined && a.taskQueue !== b.taskQueue) return [];
  if (a.templates === 'all') return b.templates;
  if (b.templates === 'all') return a.templates;
  const theirs = b.templates;
  return a.templates.filter((t) => theirs.includes(t));
}

export function overlaps(a: Coverage, b: Coverage): boolean {
  const shared = sharedTemplates(a, b);
  return shared === 'all' || shared.length > 0;
}

/** `coder/k8s-dev`, `coder/{k8s-dev, gpu}`, `every template of coder`. */
export function coverageText(c: Coverage): string {
  if (c.templates === 'all') return `every template of ${c.organization}`;
  return c.templates.length === 1 ? `${c.organization}/${c.templates[0]}` : `${c.organization}/{${c.templates.join(', ')}}`;
}
