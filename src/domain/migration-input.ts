import { bool, list, object, oneOf, text, uuid, type Input, type Output, type ParseOptions, type Rule } from './input-rules';

export { InputError } from './input-rules';

/** Temporal-style durations the workflows accept: '90s', '30m', '2h', '1d'. */
const duration = text().regex(/^\d+(ms|s|m|h|d)$/, "use a duration such as '90s', '30m', '2h' or '1d'");

const name = (what: string) =>
  text({ error: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(128, `${what} is too long`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, `${what} may hold letters, digits, '-', '_' and '.'`);

export const NO_APPROVERS_MESSAGE =
  "this run asks for approvals but names no approver: pass --approver <name> (repeatable) or set WSMIGRATE_APPROVERS=alice,bob; or pass --any-approver to let anyone who can reach Temporal approve (recorded in the workflow's memo)";

export const approvalSettingsSchema = object({
  policy: oneOf(['none', 'destructive', 'all']).default('destructive'),
  approvers: list(text().min(1)).default([]),
  /** The operator's explicit choice to accept any approver name when the list is empty. */
  anyApprover: bool().default(false),
  /** How long a gate waits before it escalates once; after a second wait it aborts. Never proceeds by itself. */
  timeout: duration.default('4h'),
  escalateTo: text().optional(),
})
  .refine((s, addIssue) => {
    // Refused at start, not at the gate: an unanswerable gate would only be found hours later.
    if (s.policy !== 'none' && s.approvers.length === 0 && !s.anyApprover) addIssue('approvers', NO_APPROVERS_MESSAGE);
  })
  .prefault({});

export const migrateWorkspaceInputSchema = object({
  owner: name('owner'),
  workspace: name('workspace'),
  template: name('template'),
  /** The template version whose source has the _v1 types (from migrateTemplate). */
  targetVersionId: uuid({ error: 'targetVersionId must be a template version UUID' }),
  /** A: stop first (default, the runbook's recommended path). B: stay running; the start is pinned to the new version. */
  option: oneOf(['A', 'B']).default('A'),
  strategy: oneOf(['rename', 'import']).default('rename'),
  /**
   * Migrate onto a target that is not the template's active version, asked for by name: the workspace
   * is then "outdated", and its owner's Update builds the active version on the _v1 state (the PVC is
   * destroyed) until the target is promoted. Refused in preflight without it (a dry run only warns).
   */
  allowInactiveVersion: bool().default(false),
  approval: approvalSettingsSchema,
  dryRun: bool().default(false),
  /** How long one Coder build may take before the step fails. */
  buildTimeout: duration.default('30m'),
  /** A build step that stops heartbeating this long (a dead worker) is retried on another worker. */
  heartbeatTimeout: duration.default('2m'),
  /**
   * Set by a fleet for its children: how the child tells the fleet it ended. 'signal' (the default,
   * and what children of older fleets do): always by signal. 'result': the fleet reads the child's
   * result, and a fleet about to continue-as-new first asks its running children to signal instead.
   */
  fleetReport: oneOf(['signal', 'result']).optional(),
});

export type MigrateWorkspaceInput = Input<typeof migrateWorkspaceInputSchema>;
export type MigrateWorkspaceParams = Output<typeof migrateWorkspaceInputSchema>;

export const migrateTemplateInputSchema = object({
  organization: name('organization'),
  template: name('template'),
  approval: approvalSettingsSchema,
  /** Push the new version but leave the active one in place (promote later by hand or with --promote). */
  stopBeforePromote: bool().default(false),
  renameDifferent: bool().default(false),
  /**
   * Rewrite a template that calls modules from outside itself (their code is left as it is): the
   * default, since registry modules (code-server, jetbrains, …) are the common case and hold no
   * Kubernetes resources. Safe because each workspace migration refuses, before pushing, a state
   * holding deprecated instances inside such a module. `--strict-modules` sets it false.
   */
  allowRemoteModules: bool().default(true),
  /** Push a version that migrates each workspace at its next build (removed{} + conditional import{}), not guard blocks. */
  zeroTouch: bool().default(false),
  dryRun: bool().default(false),
});

export type MigrateTemplateInput = Input<typeof migrateTemplateInputSchema>;
export type MigrateTemplateParams = Output<typeof migrateTemplateInputSchema>;

/** Parses input, or throws an InputError naming each bad field (`approval.timeout: use a duration …`, `dryrun: unknown field: did you mean dryRun?`). */
export function parseInput<R extends Rule<unknown, unknown>>(schema: R, input: unknown, options: ParseOptions = {}): Output<R> {
  return schema.parse(input, options) as Output<R>;
}

/** The workflow id of one workspace's migration: one run per workspace at a time. */
export function workspaceWorkflowId(template: string, owner: string, workspace: string): string {
  return `wsmigrate/${template}/${owner}/${workspace}`;
}

export function templateWorkflowId(organization: string, template: string): string {
  return `wsmigrate-template/${organization}/${template}`;
}

/** The field rules above, shared with the fleet's input schema. */
export { duration as durationSchema, name as nameSchema };
