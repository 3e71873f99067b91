/** A dependency the worker needs, checked on a timer; ready while the last success is recent. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<unknown>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; lastSuccessAgoSeconds?: number; error?: string }>;
}

/**
 * Runs each check every `intervalMs`; a dependency counts as up while its last success is younger
 * than `maxAgeMs`. Errors are kept as their first line only: they may come from anywhere.
 */
export class ReadinessProbe {
  private readonly lastSuccess = new Map<string, number>();
  private readonly lastError = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly opts: { intervalMs?: number; maxAgeMs?: number; now?: () => number } = {},
  ) {}

  start(): void {
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.opts.intervalMs ?? 15_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async runOnce(): Promise<void> {
    const now = this.opts.now ?? Date.now;
    await Promise.all(
      this.checks.map(async (c) => {
        try {
          await c.check();
          this.lastSuccess.set(c.name, now());
          this.lastError.delete(c.name);
        } catch (err) {
          this.lastError.set(c.name, String((err as Error)?.message ?? err).split('\n')[0].slice(0, 200));
        }
      }),
    );
  }

  report(): ReadinessReport {
    const now = (this.opts.now ?? Date.now)();
    const maxAge = this.opts.maxAgeMs ?? 60_000;
    const checks: ReadinessReport['checks'] = {};
    for (const c of this.checks) {
      const at = this.lastSuccess.get(c.name);
      const ok = at !== undefined && now - at <= maxAge;
      checks[c.name] = {
        ok,
        ...(at !== undefined ? { lastSuccessAgoSeconds: Math.round((now - at) / 1000) } : {}),
        ...(this.lastError.has(c.name) ? { error: this.lastError.get(c.name) } : {}),
      };
    }
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }
}
