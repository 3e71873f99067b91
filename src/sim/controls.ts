import type { SimDeployment } from './deployment';
import type { FaultConfig, FaultCounts } from './types';
import { UserBuildStream, type UserBuildStats } from './user-builds';

/**
 * What a test or an SRE may switch in a running simulator, beyond Coder's API: injected faults, a
 * provisioner daemon going offline, a stream of users' own builds. One object behind both the
 * in-process handle (`sim.setFaults`, …) and the HTTP controls (`/api/v2/sim/…`), so a scenario driven
 * only through the REST API meets the same simulator a test does.
 */
export class SimControls {
  /** Request faults injected since start, by kind (build faults: the deployment's buildFaultsInjected). */
  readonly injected = { http500: 0, http429: 0, dropped: 0, latencySpike: 0 };
  private current: FaultConfig | undefined;
  private userBuilds: UserBuildStream | undefined;

  constructor(
    private readonly d: SimDeployment,
    /** The templates users build by default: every one but the migrated template. */
    private readonly otherTemplateNames: () => string[],
    faults?: FaultConfig,
  ) {
    this.setFaults(faults);
  }

  /** The faults in force; a build fault's `times` is what is left of it (0: used up). */
  faults(): FaultConfig | undefined {
    if (!this.current) return undefined;
    const { failBuilds, lossyBuild, wrongStoredState } = this.d;
    return {
      ...this.current,
      ...(failBuilds ? { failBuilds: { ...failBuilds } } : {}),
      ...(lossyBuild ? { lossyBuild: { ...lossyBuild } } : {}),
      ...(wrongStoredState ? { wrongStoredState: { ...wrongStoredState } } : {}),
    };
  }

  /** Faults injected since start, by kind: http500, http429, dropped, latencySpike, buildFailed. */
  faultCounts(): FaultCounts {
    return { ...this.injected, buildFailed: this.d.buildFaultsInjected };
  }

  /** Replaces every fault (undefined: none). Build faults count down on the deployment's copy. */
  setFaults(f: FaultConfig | undefined): void {
    this.current = f ? { ...f } : undefined;
    this.d.failBuilds = f?.failBuilds ? { ...f.failBuilds } : undefined;
    this.d.lossyBuild = f?.lossyBuild ? { ...f.lossyBuild } : undefined;
    this.d.wrongStoredState = f?.wrongStoredState ? { ...f.wrongStoredState } : undefined;
  }

  setDaemonOffline(name: string, offline = true): void {
    if (!this.d.daemons) throw new Error('The simulator runs unlimited daemons; start it with provisioners: N (wsmigrate sim --provisioners N) to take one offline.');
    this.d.daemons.setOffline(name, offline);
  }

  startUserBuilds(o: { intervalMs?: number; templates?: string[] } = {}): void {
    this.userBuilds?.stop();
    const names = o.templates ?? this.otherTemplateNames();
    const all = [...this.d.templates.values()];
    const ids = names.map((n) => {
      const t = all.find((x) => x.name === n);
      if (!t) throw new Error(`The simulator has no template ${n}; its templates are ${all.map((x) => x.name).join(', ')}.`);
      return t.id;
    });
    if (ids.length === 0) throw new Error('Users build workspaces of other templates than the migrated one: seed one with moreTemplates: [{ name: "team-tools", versioned: true }] (wsmigrate sim --more-template team-tools:3:v1), or name templates.');
    this.userBuilds = new UserBuildStream(this.d, { intervalMs: o.intervalMs ?? 2000, templateIds: ids });
    this.userBuilds.start();
  }

  stopUserBuilds(): void {
    this.userBuilds?.stop();
  }

  userBuildStats(): UserBuildStats {
    return this.userBuilds?.stats() ?? { builds: 0, queueWaitsMs: [], stillQueued: 0 };
  }
}
