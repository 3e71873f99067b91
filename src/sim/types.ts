/** The public surface of the Coder simulator: what tests, the demo and the CLI hold on to. */
import type { Licence } from './licence';
import type { UserStatus } from './model';
import type { LifecycleTickOptions, LifecycleTickResult } from './lifecycle';
import type { LossyBuildFault } from './lossy-build';
import type { WrongStoredStateFault } from './stored-state';
import type { RoleName } from './rbac';
import type { PrebuildReconcileResult } from './prebuilds';

export type { LossyBuildFault, WrongStoredStateFault };
import type { MoreTemplateSpec } from './more-templates';
import type { DaemonSpec } from './provisioner-daemons';
import type { UserBuildStats } from './user-builds';

export interface SimulatorOptions {
  /** Seeded workspaces (owners spread over a few users). Default 3. */
  workspaces?: number;
  /** buildinfo.version; also gates PUT /workspacebuilds/{id}/state. Default 'v2.31.7+sim0001'. */
  version?: string;
  /** Per job phase (pending→running→done). Default 30. */
  buildLatencyMs?: number;
  /** Default: a random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Makes ids, names, tokens and fault draws reproducible. */
  seed?: number;
  /**
   * Run the lifecycle executor (autostart, autostop) on its own every this many ms, as coderd does
   * every minute. Default: off, so tests stay deterministic; they drive it with lifecycleTick.
   */
  lifecycleIntervalMs?: number;
  /** With lifecycleIntervalMs: the time each run evaluates at (default the real clock), so a test can run it ahead. */
  lifecycleClock?: () => Date;
  /** Default 'k8s-dev'; the organization is always 'coder'. */
  /**
   * The seeded template's files (e.g. a real template from `coder templates pull`) instead of the
   * built-in Kubernetes template; `templateVariables` are the values its push gives its variables.
   */
  templateFiles?: { name: string; content: string }[];
  templateVariables?: { name: string; value: string }[];
  /** The values every seeded workspace was created with for the template's coder_parameters (the rest: defaults). */
  workspaceParameters?: { name: string; value: string }[];
  /**
   * The seeded template's `use_classic_parameter_flow`. Default false: the dynamic parameter flow, Coder's
   * default for templates created on 2.25+ (PR #19006); true as for a template that existed before 2.24
   * (migration 000334). It decides the body of a parameter's 400 and, before 2.31.1, whether the UI's
   * "Update" stops first (`updateAndRestart`). Also PATCH /templates/{id} `use_classic_parameter_flow`.
   */
  useClassicParameterFlow?: boolean;
  templateName?: string;
  faults?: FaultConfig;
  /**
   * What runs builds. 'structural' (default): the simulator's model of Terraform against a fake
   * cluster, fast. 'terraform': real Terraform, the real kubernetes and coder providers and a real
   * Kubernetes API server (see README "Two provisioners"); needs `bootstrap-tools.sh --real-stack`.
   */
  provisioner?: 'structural' | 'terraform';
  /** With provisioner 'terraform': an existing cluster's kubeconfig; without it a local API server is started. */
  kubeconfig?: string;
  /** With provisioner 'terraform': kill a canceled apply this long after its interrupt (Coder's ExitTimeout); unset, only the 2-minute apply limit. */
  terraformExitTimeoutMs?: number;
  /** Default true: each seeded workspace's latest build is a succeeded start (else a succeeded stop). */
  workspacesRunning?: boolean;
  /**
   * Default 'premium': template access control works (a template can hold members to its active
   * version). 'agpl' (no licence) and 'expired': PATCH require_active_version answers 200, is ignored
   * and reads back false, so nobody is held. See licence.ts.
   */
  licence?: Licence;
  /** Older spelling: false is licence 'agpl'. Ignored when licence is given. */
  premium?: boolean;
  /** CODER_ALLOW_WORKSPACE_RENAMES (default false, as Coder's): PATCH /workspaces/{id} may rename a workspace. */
  allowWorkspaceRenames?: boolean;
  /**
   * Provisioner daemons: how many (named sim-provisioner-1, …) or one spec each (name, tags). Jobs then
   * wait in one FIFO queue and `GET /organizations/{org}/provisionerdaemons` lists them. Default:
   * unlimited, every job runs at once, and that route answers as on a Coder without it.
   */
  provisioners?: number | DaemonSpec[];
  /** More templates of the organization besides `templateName`, each with its own workspaces. */
  moreTemplates?: MoreTemplateSpec[];
  /**
   * Prebuilt workspaces (Premium): every version of the seeded template has a preset keeping this many
   * (see prebuilds.ts); they are seeded running on its first version, owned by the `prebuilds` system user.
   */
  prebuilds?: number;
  /**
   * Run the prebuilds reconciler on its own every this many ms, as coderd does
   * (CODER_WORKSPACE_PREBUILDS_RECONCILIATION_INTERVAL). Default: off; tests call reconcilePrebuilds().
   */
  prebuildReconcileIntervalMs?: number;
  /**
   * The seeded template's dormancy settings (default 0: off, as a new template's), as PATCH
   * /templates/{id} would write them: time_til_dormant and time_til_dormant_autodelete, in ms. The
   * lifecycle executor then makes idle workspaces dormant and deletes dormant ones (see lifecycle.ts).
   */
  dormancy?: { timeTilDormantMs?: number; timeTilDormantAutodeleteMs?: number };
}

export interface FailBuildsFault {
  workspaceId?: string;
  /** Only builds of this template version: a version that does not build (every workspace's migration to it fails, their restores on the old one do not). */
  templateVersionId?: string;
  transition?: 'start' | 'stop' | 'delete';
  /** How many matching builds fail; unlimited when absent. */
  times?: number;
  /** 0..1: each matching build fails with this chance (a flaky provisioner); absent = every matching build. */
  rate?: number;
  message?: string;
}

export interface FaultConfig {
  /** 0..1, per request (never on /buildinfo unless includeBuildInfo). */
  error500Rate?: number;
  rate429?: number;
  retryAfterSeconds?: number;
  addedLatencyMs?: number;
  /** 0..1: this share of requests is held latencySpikeMs (default 5000) before any other fault or answer. */
  latencySpikeRate?: number;
  latencySpikeMs?: number;
  /** Destroy the socket without an answer, before the request has any effect. */
  dropConnectionRate?: number;
  /** Matching builds end failed before they touch state or cluster. */
  failBuilds?: FailBuildsFault;
  /** Matching builds succeed but forget or replace one object (structural provisioner only). */
  lossyBuild?: LossyBuildFault;
  /** Matching builds succeed but Coder keeps other bytes as their state than the provisioner wrote; the cluster is untouched. */
  wrongStoredState?: WrongStoredStateFault;
  /**
   * Hold each answer to a write (not GET) this long AFTER it took effect (a PUT's state is already
   * stored): a worker killed meanwhile never learns that its call landed.
   */
  replyDelayMs?: number;
  /** Restrict request faults to paths containing one of these strings. */
  only?: string[];
  /** Let request faults hit GET /buildinfo too. */
  includeBuildInfo?: boolean;
}

export interface FaultCounts {
  http500: number;
  http429: number;
  dropped: number;
  latencySpike: number;
  buildFailed: number;
}

export interface KubeObject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** What a volume holds: seeded PVCs carry "home of <owner>", fresh ones are empty. */
  readonly data?: string;
  readonly createdAt: string;
}

export interface PvcLoss {
  workspace: string;
  namespace: string;
  name: string;
  oldUid: string;
  /** Set once a PVC with the same namespace/name is created again. */
  newUid?: string;
  buildId: string;
}

export interface KubeClusterView {
  objects(): KubeObject[];
  pvc(namespace: string, name: string): KubeObject | undefined;
  pvcLosses(): PvcLoss[];
}

export interface SimulatedWorkspaceSummary {
  id: string;
  name: string;
  owner: string;
  latestBuildId: string;
}

export interface SimulatedTemplateSummary {
  id: string;
  name: string;
  readonly activeVersionId: string;
  originalVersionId: string;
}

export interface SimulatedDaemonSummary {
  id: string;
  name: string;
  status: 'idle' | 'busy' | 'offline';
  tags: Record<string, string>;
  currentJobId?: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  /** 0 when the connection was dropped without an answer. */
  status: number;
}

export interface CoderSimulator {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** Owner (and so template admin) session token. */
  token: string;
  /** A plain member: reads and builds its own workspaces; no template update (GET and PUT state → 404). */
  memberToken: string;
  /** The session token of a seeded user (a workspace's owner), to act as that user. */
  tokenOf(username: string): string;
  /**
   * Sets a user's status as coderd would: 'suspended' and 'active' as PUT /users/{user}/status/suspend
   * and /activate do (those routes also exist), 'dormant' as coderd's dormancy job marks an unseen user
   * (no route; the user's next API call makes it active). A non-active user's token answers 401.
   */
  setUserStatus(username: string, status: UserStatus): void;
  /**
   * A token of a new user holding this built-in role (coderd/rbac/roles.go): 'template-admin' reads
   * every workspace but may not start or stop them; 'organization-admin' may; 'member' only its own.
   * Also POST /api/v2/sim/tokens {role, username?, name?} as an Owner. `fullName` is the user's name
   * as Coder stores it ('' when not given: the provider's owner_name/full_name then read "default").
   */
  tokenFor(role: RoleName, username?: string, fullName?: string): string;
  orgId: string;
  template: SimulatedTemplateSummary;
  workspaces(): SimulatedWorkspaceSummary[];
  setFaults(f: FaultConfig | undefined): void;
  /** For 'structural' the fake cluster; for 'terraform' a view of the API server refreshed after every build. */
  cluster: KubeClusterView;
  /** Which provisioner runs builds, and for 'terraform' the kubeconfig of the API server it uses. */
  provisioner: { kind: 'structural' | 'terraform'; kubeconfig?: string };
  /**
   * The Coder UI's "Update" of the reported `version` (site/src/api/api.ts `updateWorkspace`): on 2.31.1+, or
   * 2.24+ with the classic parameter flow, a running workspace is stopped on the previous build's version
   * first (waits); then a start pinned to the active version. Before that on the dynamic flow (Coder's
   * default for new templates) the start comes straight, on the running workspace's state.
   */
  updateAndRestart(workspaceId: string): Promise<{ stopBuildId?: string; startBuildId: string }>;
  requestLog(): RequestLogEntry[];
  /** Faults injected since start, by kind: http500, http429, dropped, latencySpike, buildFailed. */
  faultCounts(): FaultCounts;
  /** The licence in force now; setLicence switches it (a licence that expires, or one applied, mid-run). */
  licence(): Licence;
  setLicence(licence: Licence): void;
  /** One run of the lifecycle executor at `at` (default now); also POST /api/v2/sim/lifecycle/tick. */
  lifecycleTick(at?: Date, opts?: LifecycleTickOptions): LifecycleTickResult;
  /**
   * One run of Coder's prebuilds reconciler: the running prebuilt workspaces of an inactive version's
   * preset get a delete build (on the active version), the active version's preset is filled up.
   * Also POST /api/v2/sim/prebuilds/reconcile.
   */
  reconcilePrebuilds(): PrebuildReconcileResult;
  /** The latest build's state text. */
  stateOf(workspaceId: string): string;
  /** Every template of the organization (the first is `template`). */
  templates(): SimulatedTemplateSummary[];
  /** The provisioner daemons (none when unlimited). */
  provisionerDaemons(): SimulatedDaemonSummary[];
  /** A fault: the daemon stops taking jobs (it finishes the one it runs); `false` brings it back. */
  setDaemonOffline(name: string, offline?: boolean): void;
  /**
   * Users' own builds, one every `intervalMs` (default 2000), on workspaces of `templates` (names;
   * default every template but the first, so they never race a migration of it).
   */
  startUserBuilds(opts?: { intervalMs?: number; templates?: string[] }): void;
  stopUserBuilds(): void;
  userBuildStats(): UserBuildStats;
  close(): Promise<void>;
}
