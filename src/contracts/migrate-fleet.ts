/**
 * migrateFleet's contract: its input, progress (query), result, the pause/resume/cancel updates
 * and their signal twins, and the state it carries across continue-as-new. Shared by the workflow,
 * the client, the CLI and the tests.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PendingApproval } from '../domain/approval-policy';
import type { ChildOutcome, FleetCounts } from '../domain/fleet-progress';
import type { FleetSummary } from '../domain/fleet-summary';
import type { FleetPacingStatus } from '../domain/provisioner-pacing';
import type { ApprovalReceipt } from './approval';

export type { MigrateFleetInput } from '../domain/fleet-input';
export type { FleetSummary } from '../domain/fleet-summary';

/** One workspace a fleet migrates. */
export interface FleetItem {
  owner: string;
  workspace: string;
}

/**
 * What the fleet did about builds on the old versions while it migrates. With the template requiring
 * its active version (Premium), a member's start on a pre-migration version is refused; stops are
 * not, and template admins and owners are not held (enterprise/coderd/dbauthz/accesscontrol.go).
 * Each state is what Coder reads back, never what was asked for.
 */
export type ActiveVersionLock =
  | { state: 'switched-on' }
  /** It was on already: by an earlier fleet run (wsmigrate's marker is in the blob store), or by the operator. */
  | { state: 'already-on'; byWsmigrate: boolean }
  /**
   * Coder accepted the change and reads it back false: without a Premium licence (or with an expired
   * one) the setting is ignored (coderd/database/dbauthz/accesscontrol.go AGPLTemplateAccessControlStore;
   * coderd/templates.go patchTemplateMeta answers 200). Nothing holds anyone to the active version.
   */
  | { state: 'not-held'; reason: string }
  /** Coder refused the change: migrated workspaces stay exposed to builds on old versions. */
  | { state: 'refused'; reason: string }
  /**
   * wsmigrate left it off: the fleet's target is not the active version, so with the setting on
   * Coder's autostart and members' starts would build the active, old version on migrated workspaces.
   */
  | { state: 'declined'; reason: string }
  /**
   * wsmigrate's setting (this run's or an earlier batch's) switched back off: by the run that archived
   * the old versions, by the watch when another version was promoted, or (`atRunEnd`) as this run
   * ended without either: the setting is held only while a fleet run runs and watches the active
   * version, never between a schedule's windows or after a run that stopped short. `rolledBack`: by
   * the watch, because another version became active; the fleet's resume takes it again once the
   * target is the active version again (src/workflows/fleet-lock-retake.ts).
   */
  | { state: 'given-back'; atRunEnd?: boolean; rolledBack?: boolean };

export type ActiveVersionRelease = 'switched-off' | 'left-on-by-operator' | 'was-off';

/** The fleet's watch of its target while it holds the lock: still active, or another version promoted (and what became of the setting). */
export type ActiveVersionCheck = { state: 'target' } | { state: 'changed'; activeVersionId: string; activeVersionName?: string; release: ActiveVersionRelease };

export type FleetStage = 'template' | 'canary' | 'canary-gate' | 'rolling' | 'archive' | 'done';
/** Where a fleet stands: the same words in `fleet status`, the WsmigratePhase search attribute and README. */
export type FleetPhase = 'running' | 'awaiting-approval' | 'paused' | 'cancelling' | 'done' | 'cancelled' | 'failed';

export interface RunningChild {
  workflowId: string;
  subject: string;
  startedAtMs: number;
  runId?: string;
  /** It reports by its result event, which only the fleet run that started it sees (else it reports by signal). */
  awaitsResult?: boolean;
}

export interface FleetFailure {
  workflowId: string;
  subject: string;
  outcome: ChildOutcome;
  reason: string;
}

/** A workspace the fleet left alone, and why (a running dormant one: who must act). */
export interface FleetSkip {
  workflowId: string;
  subject: string;
  reason: string;
}

/** A workspace whose migration a gate declined (a person rejected it, or nobody answered in time), and how it ended. */
export interface FleetDecline {
  workflowId: string;
  subject: string;
  reason: string;
}

export interface ChildPendingApproval {
  workflowId: string;
  gateId: string;
  since?: string;
  summary?: string;
  /** Who may decide it, in words, as the child said (absent from children older than this field). */
  approvers?: string;
}

export interface FleetControlEntry {
  action: 'pause' | 'resume' | 'cancel';
  by: string;
  reason?: string;
  at: string;
}

/** Everything a fleet knows, carried from run to run by continue-as-new: ids and counts, never workspace data. */
export interface FleetState {
  stage: FleetStage;
  /** The --owner/--exclude names were checked against Coder (or there were none): `fleet start` waits for this. */
  namesChecked?: boolean;
  targetVersionId?: string;
  templateOutcome?: string;
  offset: number;
  /** Where discovery goes on from: the last workspace it listed (owner/name). */
  discoveryCursor?: string;
  discoveryDone: boolean;
  total?: number;
  filteredOut: number;
  queue: FleetItem[];
  running: RunningChild[];
  started: number;
  canary: { workflowId: string; subject: string; outcome?: ChildOutcome }[];
  counts: FleetCounts;
  /**
   * Of `counts['already-migrated']`: found already migrated by discovery, so no migration ran for
   * them and they do not widen the failure budget (absent in older runs' state: none).
   */
  foundMigrated?: number;
  durations: { totalMs: number; n: number };
  failures: FleetFailure[];
  /** Workspaces skipped for a reason a person must act on (running dormant ones); capped like `failures`; absent in older runs' state. */
  skips?: FleetSkip[];
  /** Migrations a gate declined (rejected, or timed out): not failures; capped like `failures`; absent in older runs' state. */
  declines?: FleetDecline[];
  /** The notification that most migrations roll back was sent (once a fleet, across continue-as-new); absent in older runs' state. */
  rollbacksNotified?: boolean;
  paused: boolean;
  cancelled: boolean;
  acceptedFailures: number;
  childApprovals: ChildPendingApproval[];
  control: FleetControlEntry[];
  receipts: ApprovalReceipt[];
  startedAt: string;
  runs: number;
  archive?: FleetArchiveResult;
  note?: string;
  zeroTouch?: ZeroTouchReport;
  activeVersionLock?: ActiveVersionLock;
  pacing?: FleetPacingStatus;
}

/** A zero-touch fleet's answer to "who migrated how" (names capped at ZERO_TOUCH_NAMES each). */
export interface ZeroTouchReport {
  /** Found with no deprecated type left, or already built on the zero-touch version: they migrated at a build of their own. */
  migratedThemselves: number;
  /** Running workspaces the fleet started pinned to the zero-touch version (then checked). */
  migratedByRunbook: string[];
  /** Stopped, still unmigrated: each migrates at its next start (the zero-touch version is active). */
  waitingForBuild: string[];
}


export interface FleetArchiveResult {
  archived: { id: string; name: string }[];
  keptInUse: { id: string; name: string; workspaces: number }[];
  skipped?: string;
  /** Once no old version can be built: the template's require_active_version given back (or left, if it was the operator's). */
  activeVersion?: ActiveVersionRelease;
}

export interface FleetProgress {
  workflowId: string;
  organization: string;
  template: string;
  phase: FleetPhase;
  stage: FleetStage;
  dryRun: boolean;
  targetVersionId?: string;
  counts: FleetCounts;
  finished: number;
  filteredOut: number;
  /** Workspaces found by discovery so far that still need migrating (queued + running). */
  remaining: number;
  total?: number;
  running: RunningChild[];
  failures: FleetFailure[];
  /** Skipped workspaces a person must act on, and why (running dormant ones). */
  skips?: FleetSkip[];
  /** Migrations a gate declined (a person rejected it, or nobody answered in time): decisions, not failures. */
  declines?: FleetDecline[];
  pendingApproval?: PendingApproval;
  childApprovals: ChildPendingApproval[];
  etaMs?: number;
  startedAt: string;
  runs: number;
  concurrency: number;
  budget: { allowance: number; failures: number; accepted: number };
  control: FleetControlEntry[];
  approvals: ApprovalReceipt[];
  note?: string;
  /** How Coder's provisioners size the window, and why the fleet waits when it does. */
  pacing?: FleetPacingStatus;
  /** The names it was given are known to Coder (checked before anything changes). */
  namesChecked?: boolean;
  /** What holds members to the active version now (absent when the fleet was not asked to, or has not yet). */
  activeVersionLock?: ActiveVersionLock;
}

export interface FleetResult {
  phase: 'done' | 'cancelled';
  summary: FleetSummary;
  targetVersionId?: string;
  failures: FleetFailure[];
  /** Skipped workspaces a person must act on, and why (running dormant ones). */
  skips?: FleetSkip[];
  /** Migrations a gate declined (a person rejected it, or nobody answered in time): decisions, not failures. */
  declines?: FleetDecline[];
  archive?: FleetArchiveResult;
  zeroTouch?: ZeroTouchReport;
  /** What the fleet did so nobody starts a migrated workspace on an old version meanwhile. */
  activeVersionLock?: ActiveVersionLock;
  /** True when a limit (a maintenance window's batch) or a cancel left workspaces for a later run. */
  moreRemaining: boolean;
  note?: string;
  /**
   * As the run ended, the template's active version was not its target (a rollback after its last
   * build): the sentence, also in `note`. The organization shows it on the template's row.
   */
  rolledBackAtEnd?: string;
  /** A cancelled fleet: who cancelled it (a person, a gate, Temporal's cancel request) and why. */
  cancelledBy?: { by: string; reason?: string };
}

export interface FleetControlInput {
  by: string;
  reason?: string;
}

export const fleetProgressQuery = defineQuery<FleetProgress>('progress');
/**
 * The result once the fleet has ended. A cancelled fleet ends as Cancelled in Temporal, which keeps
 * no result for it, so this query (and the memo) is where its summary is read.
 */
export const fleetResultQuery = defineQuery<FleetResult | undefined>('result');
/** Sent to the workflow that started the fleet (an organization's run) just before the fleet ends, with its result. */
export const fleetEndedSignal = defineSignal<[FleetEnded]>('fleetEnded');

export interface FleetEnded {
  workflowId: string;
  result: FleetResult;
}
export const pauseFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('pause');
export const resumeFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('resume');
export const cancelFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('cancel');
/** Signal twins of the updates, for the Web UI and `temporal workflow signal`; invalid ones are logged and ignored. */
export const pauseFleetSignal = defineSignal<[FleetControlInput]>('pause');
export const resumeFleetSignal = defineSignal<[FleetControlInput]>('resume');
export const cancelFleetSignal = defineSignal<[FleetControlInput]>('cancel');
