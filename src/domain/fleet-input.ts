import { bool, int, list, num, object, oneOf, text, uuid, type Input, type Output } from './input-rules';
import { approvalSettingsSchema, durationSchema, nameSchema } from './migration-input';

/** Which workspaces of the template a fleet run takes; everything else is left alone. */
export const fleetFiltersSchema = object({
  /** Only these owners (usernames); empty = every owner. */
  owners: list(nameSchema('owner')).default([]),
  /** Workspace names matching this glob (`*` any run of characters, `?` one), e.g. `dev-*`. */
  name: text().trim().min(1, 'name glob is empty: leave it out to take every workspace').max(128).optional(),
  status: oneOf(['any', 'running', 'stopped'], { error: "status must be 'any', 'running' or 'stopped'" }).default('any'),
  /** `owner/workspace` entries never touched by this fleet. */
  exclude: list(text().regex(/^[^/\s]+\/[^/\s]+$/, 'exclude entries are owner/workspace, e.g. alice/dev')).default([]),
  /** Start at most this many migrations in this run (a maintenance window's batch); the rest wait for the next run. */
  limit: int({ error: 'limit must be a whole number' }).min(1, 'limit must be at least 1').max(100_000).optional(),
}).prefault({});

export const failureBudgetSchema = object({
  /** Percent of finished migrations that may fail (failed + needs-attention) before the fleet stops starting new ones. */
  percent: num({ error: 'failureBudget.percent must be a number' }).min(0).max(100).default(10),
  /** …but never fewer than this many. */
  min: int({ error: 'failureBudget.min must be a whole number' }).min(0).max(10_000).default(2),
}).prefault({});

export const migrateFleetInputSchema = object({
  organization: nameSchema('organization'),
  template: nameSchema('template'),
  /** The _v1 version to migrate to; without it the fleet migrates the template first (a migrateTemplate child). */
  targetVersionId: uuid({ error: 'targetVersionId must be a template version UUID (or leave it out to migrate the template first)' }).optional(),
  filters: fleetFiltersSchema,
  option: oneOf(['A', 'B'], { error: "option must be 'A' (stop first) or 'B' (stay running)" }).default('A'),
  strategy: oneOf(['rename', 'import'], { error: "strategy must be 'rename' or 'import'" }).default('rename'),
  /** Migrations running at once after the canary. */
  concurrency: int({ error: 'concurrency must be a whole number' }).min(1, 'concurrency must be 1..200').max(200, 'concurrency must be 1..200').default(10),
  /**
   * The share of Coder's online provisioner daemons the fleet may keep busy (0.5: half, 1: all of
   * them), never more than `concurrency`; users' own builds queued for a daemon hold new starts.
   */
  provisionerShare: num({ error: 'provisionerShare must be a number from 0.05 to 1' }).min(0.05, 'provisionerShare must be at least 0.05 (one daemon in twenty)').max(1, 'provisionerShare must be at most 1 (every daemon)').default(0.5),
  /** 'provisioners': the window follows Coder's daemons (falls back to `concurrency` when Coder will not list them); 'off': `concurrency` alone. */
  pacing: oneOf(['provisioners', 'off'], { error: "pacing must be 'provisioners' or 'off'" }).default('provisioners'),
  /** Workspaces migrated first, before the `fleet-continue` gate; 0 skips the canary. */
  canary: int({ error: 'canary must be a whole number' }).min(0, 'canary must be 0..100').max(100, 'canary must be 0..100').default(3),
  failureBudget: failureBudgetSchema,
  /** The fleet's own gates (fleet-continue, fleet-budget, fleet-archive): who approves, how long a gate waits. */
  approval: approvalSettingsSchema,
  /** The policy each workspace's migration runs with; its approvers and timeout are the fleet's. The guard still asks when a plan needs it. */
  workspaceApproval: object({
    policy: oneOf(['none', 'destructive', 'all'], { error: "workspaceApproval.policy must be 'none', 'destructive' or 'all'" }).default('none'),
    /** How long a workspace's gate waits (default: the fleet's approval.timeout). */
    timeout: durationSchema.optional(),
  }).prefault({}),
  /** At the end, when every workspace is migrated, archive the old versions no workspace uses (after the `fleet-archive` gate). */
  archiveOldVersions: bool().default(true),
  /**
   * While the fleet migrates, the template requires its active version (Premium), so no member can
   * start a migrated workspace on an old version (that destroys its PVC); wsmigrate gives the setting
   * back once the old versions are archived. Off: migrated workspaces stay exposed until then.
   */
  requireActiveVersion: bool().default(true),
  /**
   * Zero-touch: the template step pushes the zero-touch version (removed{} + conditional import{});
   * per workspace only a start pinned to it for running ones, nothing for stopped ones (they migrate
   * themselves at their next start), then the health check. No state push, no stop.
   */
  zeroTouch: bool().default(false),
  /** Every workspace is dry-run: read, rewrite, verify; nothing changes. */
  dryRun: bool().default(false),
  /** Passed to the template child (see migrateTemplate's input); workspaces are checked whatever it says. */
  allowRemoteModules: bool().default(true),
  buildTimeout: durationSchema.default('30m'),
  /** Each workspace's build steps: how long a silent (dead) worker holds one before another worker takes it over (default: the workspace's 2m). */
  heartbeatTimeout: durationSchema.optional(),
  /** Continue-as-new once a run's history holds this many events (Temporal warns at 10,240). */
  historyLimit: int({ error: 'historyLimit must be a whole number of events' }).min(200, 'historyLimit must be at least 200').max(9_000, 'historyLimit must stay under 9,000').default(4_000),
});

export type MigrateFleetInput = Input<typeof migrateFleetInputSchema>;
export type MigrateFleetParams = Output<typeof migrateFleetInputSchema>;
export type FleetFilters = Output<typeof fleetFiltersSchema>;

/** One fleet per template: a second start while it runs is refused. Scheduled runs add a timestamp. */
export function fleetWorkflowId(organization: string, template: string): string {
  return `wsmigrate-fleet/${organization}/${template}`;
}
