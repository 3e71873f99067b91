import { LICENCES } from './licence';
import { runLifecycleTick } from './lifecycle';
import { ROLE_NAMES } from './rbac';
import { ACTIVE_JOB_STATUSES } from './model';
import { SimHttpServer } from './http/server';
import { seedMoreTemplates } from './more-templates';
import { PREBUILDS_USER_ID, reconcilePrebuilds, seedPrebuilds } from './prebuilds';
import { ProvisionerDaemonPool } from './provisioner-daemons';
import { SimControls } from './controls';
import type { SimProvisioner } from './provisioner';
import { SimRandom } from './random';
import { seedDeployment } from './seed';
import type { CoderSimulator, SimulatorOptions } from './types';
import { parameterFlowOf } from './template-parameters';
import { updateStopsFirst } from './update-workspace';

export type {
  CoderSimulator,
  FaultConfig,
  FailBuildsFault,
  LossyBuildFault,
  WrongStoredStateFault,
  FaultCounts,
  KubeClusterView as KubeCluster,
  KubeObject,
  PvcLoss,
  RequestLogEntry,
  SimulatedDaemonSummary,
  SimulatedTemplateSummary,
  SimulatedWorkspaceSummary,
  SimulatorOptions,
} from './types';
export { K8S_TEMPLATE_MAIN_TF } from './template-source';
export { LICENCES, type Licence } from './licence';
export { ROLE_NAMES, type RoleName } from './rbac';
export type { LifecycleTickOptions, LifecycleTickResult } from './lifecycle';
export type { PrebuildReconcileResult } from './prebuilds';
export { versionedTemplateSource, type MoreTemplateSpec } from './more-templates';
export type { DaemonSpec } from './provisioner-daemons';
export type { UserBuildStats } from './user-builds';
export { packTar, unpackTar, type ArchiveFile } from './tar-archive';

export const DEFAULT_SIM_VERSION = 'v2.31.7+sim0001';

/**
 * Starts an in-process Coder deployment on a local port: the REST API of reference/coder-api.md,
 * asynchronous builds planned from the template's real Terraform source, and a fake cluster that
 * records every home volume a build destroys.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<CoderSimulator> {
  if (opts.lifecycleIntervalMs !== undefined && (!Number.isInteger(opts.lifecycleIntervalMs) || opts.lifecycleIntervalMs < 10)) {
    throw new Error(`lifecycleIntervalMs must be a whole number of milliseconds, at least 10; got ${String(opts.lifecycleIntervalMs)}.`);
  }
  const random = new SimRandom(opts.seed);
  // A separate stream for fault draws, so turning faults on does not shift the seeded ids.
  const faultRandom = new SimRandom(opts.seed === undefined ? undefined : opts.seed + 0x9e3779b9);
  const version = opts.version ?? DEFAULT_SIM_VERSION;
  let real: (SimProvisioner & { kubeconfigPath: string }) | undefined;
  if ((opts.provisioner ?? 'structural') === 'terraform') {
    const { TerraformProvisioner } = await import('./terraform-provisioner');
    real = await TerraformProvisioner.start({
      ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
      ...(opts.terraformExitTimeoutMs !== undefined ? { exitTimeoutMs: opts.terraformExitTimeoutMs } : {}),
    });
  } else if (opts.kubeconfig) {
    throw new Error('A kubeconfig is only used by the terraform provisioner; pass provisioner: "terraform" too.');
  } else if (opts.terraformExitTimeoutMs !== undefined) {
    throw new Error('terraformExitTimeoutMs is only used by the terraform provisioner; pass provisioner: "terraform" too.');
  }
  let seeded: Awaited<ReturnType<typeof seedDeployment>>;
  try {
    seeded = await seedDeployment(random, {
      workspaces: opts.workspaces ?? 3,
      templateName: opts.templateName ?? 'k8s-dev',
      ...(opts.templateFiles ? { templateFiles: opts.templateFiles } : {}),
      ...(opts.templateVariables ? { templateVariables: opts.templateVariables } : {}),
      ...(opts.workspaceParameters ? { workspaceParameters: opts.workspaceParameters } : {}),
      ...(opts.useClassicParameterFlow !== undefined ? { useClassicParameterFlow: opts.useClassicParameterFlow } : {}),
      workspacesRunning: opts.workspacesRunning ?? true,
      buildLatencyMs: opts.buildLatencyMs ?? 30,
      ...(real ? { provisioner: real } : {}),
    });
  } catch (e) {
    await real?.close();
    throw e;
  }
  const d = seeded.deployment;
  d.licence = opts.licence ?? (opts.premium === false ? 'agpl' : 'premium');
  d.allowWorkspaceRenames = opts.allowWorkspaceRenames ?? false;
  for (const [key, value] of Object.entries(opts.dormancy ?? {})) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0) {
      await d.provisioner.close();
      throw new Error(`dormancy.${key} must be a whole number of milliseconds, 0 or more (0 is off), got ${String(value)}.`);
    }
    seeded.template.meta[key as 'timeTilDormantMs' | 'timeTilDormantAutodeleteMs'] = value;
  }
  if (opts.provisioners !== undefined) {
    const specs = typeof opts.provisioners === 'number' ? Array.from({ length: opts.provisioners }, () => ({})) : opts.provisioners;
    if (specs.length < 1 || !Number.isInteger(specs.length)) {
      await d.provisioner.close();
      throw new Error(`provisioners must be at least 1 (leave it out for unlimited daemons), got ${String(opts.provisioners)}.`);
    }
    d.daemons = new ProvisionerDaemonPool(specs, () => d.newId(), () => d.now());
  }
  if (opts.prebuilds !== undefined) {
    if (!Number.isInteger(opts.prebuilds) || opts.prebuilds < 1) {
      await d.provisioner.close();
      throw new Error(`prebuilds must be a whole number of at least 1 (leave it out for none), got ${String(opts.prebuilds)}.`);
    }
    await seedPrebuilds(d, seeded.template, opts.prebuilds);
  }
  // Seeded people only: not the prebuilds system user.
  const members = d.users.filter((u) => !u.roles.includes('owner') && u.id !== PREBUILDS_USER_ID);
  const more = await seedMoreTemplates(d, seeded.admin, members, opts.moreTemplates ?? []);
  const controls = new SimControls(d, () => more.map((t) => t.name), opts.faults);
  d.faultDraw = () => faultRandom.next();

  // coderd runs the executor every minute on its own; here only when asked.
  let lifecycleTimer: NodeJS.Timeout | undefined;
  if (opts.lifecycleIntervalMs !== undefined) {
    const clock = opts.lifecycleClock ?? (() => new Date());
    lifecycleTimer = setInterval(() => runLifecycleTick(d, clock()), opts.lifecycleIntervalMs);
  }
  let prebuildTimer: NodeJS.Timeout | undefined;
  if (opts.prebuildReconcileIntervalMs !== undefined) prebuildTimer = setInterval(() => reconcilePrebuilds(d), opts.prebuildReconcileIntervalMs);
  const server = new SimHttpServer({ deployment: d, serverVersion: version, faultRandom, controls });
  const url = await server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  d.accessUrl = url;
  const template = seeded.template;
  const summaryOf = (t: typeof template, originalVersionId: string) => ({
    id: t.id,
    name: t.name,
    get activeVersionId() {
      return t.activeVersionId;
    },
    originalVersionId,
  });

  const workspaceOrThrow = (workspaceId: string) => {
    const ws = d.workspaces.get(workspaceId);
    if (!ws) throw new Error(`The simulator has no workspace ${workspaceId}; pick one from sim.workspaces().`);
    return ws;
  };

  return {
    url,
    token: seeded.admin.token,
    memberToken: seeded.member.token,
    tokenOf(username) {
      const user = d.users.find((u) => u.username === username);
      if (!user) throw new Error(`The simulator has no user ${username}; its users are ${d.users.map((u) => u.username).join(', ')}.`);
      return user.token;
    },
    setUserStatus(username, status) {
      const user = d.users.find((u) => u.username === username);
      if (!user) throw new Error(`The simulator has no user ${username}; its users are ${d.users.map((u) => u.username).join(', ')}.`);
      if (!['active', 'suspended', 'dormant'].includes(status)) throw new Error(`Unknown user status "${String(status)}"; use active, suspended or dormant.`);
      user.status = status;
    },
    tokenFor(role, username, fullName) {
      if (!ROLE_NAMES.includes(role)) throw new Error(`Unknown role "${String(role)}"; use one of ${ROLE_NAMES.join(', ')}.`);
      return d.mintUser(role, username, fullName).token;
    },
    orgId: d.org.id,
    template: {
      id: template.id,
      name: template.name,
      get activeVersionId() {
        return template.activeVersionId;
      },
      originalVersionId: seeded.originalVersionId,
    },
    workspaces: () =>
      [...d.workspaces.values()]
        .filter((ws) => !ws.deleted)
        .map((ws) => ({ id: ws.id, name: ws.name, owner: d.userById(ws.ownerId)?.username ?? '', latestBuildId: d.latestBuild(ws).id })),
    setFaults: (f) => controls.setFaults(f),
    cluster: d.provisioner.cluster,
    provisioner: real ? { kind: 'terraform', kubeconfig: real.kubeconfigPath } : { kind: 'structural' },
    async updateAndRestart(workspaceId) {
      const ws = workspaceOrThrow(workspaceId);
      const latest = d.latestBuild(ws);
      if (ACTIVE_JOB_STATUSES.has(latest.job.status)) {
        throw new Error(`Workspace ${ws.name} has build #${latest.buildNumber} ${latest.job.status}; "Update and restart" waits for it in the UI.`);
      }
      let stopBuildId: string | undefined;
      // The UI stops a running workspace first only on 2.24+ with the classic parameter flow, or 2.31.1+
      // (update-workspace.ts); otherwise it starts the running workspace straight on the active version.
      if (latest.transition === 'start' && latest.job.status === 'succeeded' && updateStopsFirst(version, parameterFlowOf(d.template(ws.templateId)))) {
        // The UI posts a stop without a version: it runs on the previously deployed version.
        const stop = d.createBuild(seeded.admin, ws, { transition: 'stop', reason: 'dashboard' });
        stopBuildId = stop.id;
        const done = await d.waitForBuild(stop.id);
        if (done.job.status !== 'succeeded') {
          throw new Error(`Update and restart of ${ws.name}: the stop build #${done.buildNumber} ended ${done.job.status}: ${done.job.error ?? ''}`);
        }
      }
      const start = d.createBuild(seeded.admin, ws, { transition: 'start', templateVersionId: template.activeVersionId, reason: 'dashboard' });
      return { ...(stopBuildId ? { stopBuildId } : {}), startBuildId: start.id };
    },
    requestLog: () => server.log.map((e) => ({ ...e })),
    faultCounts: () => controls.faultCounts(),
    licence: () => d.licence,
    setLicence(licence) {
      if (!LICENCES.includes(licence)) throw new Error(`Unknown licence "${String(licence)}"; use one of ${LICENCES.join(', ')}.`);
      d.licence = licence;
    },
    reconcilePrebuilds: () => reconcilePrebuilds(d),
    stateOf: (workspaceId) => d.latestBuild(workspaceOrThrow(workspaceId)).state.toString('utf8'),
    lifecycleTick: (at, tickOpts) => runLifecycleTick(d, at ?? new Date(), tickOpts),
    templates: () => [summaryOf(template, seeded.originalVersionId), ...more.map((t) => summaryOf(t, t.activeVersionId))],
    provisionerDaemons: () =>
      (d.daemons?.daemons ?? []).map((daemon) => ({
        id: daemon.id,
        name: daemon.name,
        status: d.daemons?.status(daemon) ?? 'idle',
        tags: { ...daemon.tags },
        ...(daemon.currentJob ? { currentJobId: daemon.currentJob.id } : {}),
      })),
    setDaemonOffline: (name, offline = true) => controls.setDaemonOffline(name, offline),
    startUserBuilds: (o = {}) => controls.startUserBuilds(o),
    stopUserBuilds: () => controls.stopUserBuilds(),
    userBuildStats: () => controls.userBuildStats(),
    async close() {
      if (lifecycleTimer) clearInterval(lifecycleTimer);
      if (prebuildTimer) clearInterval(prebuildTimer);
      controls.stopUserBuilds();
      await d.close();
      await server.close();
      await d.provisioner.close();
    },
  };
}
