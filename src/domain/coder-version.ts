/**
 * Coder server versions as `GET /api/v2/buildinfo` reports them (`v2.29.2+abc1234`, `v0.0.0-devel+abc`)
 * and the two behaviours the runbook depends on:
 * - `state` in `POST /workspaces/{id}/builds`, in every 2.x release;
 * - "Update and Restart" running a stop build with the previous template version first, from 2.31.1.
 */

export interface CoderVersion {
  readonly raw: string;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Semver pre-release identifiers: `rc.1` gives ['rc', '1']. */
  readonly prerelease: readonly string[];
  /** Build metadata after `+` (Coder appends the short git sha), ignored in comparisons. */
  readonly build?: string;
  /** A development build from main (`-devel`): newer than every release. */
  readonly devel: boolean;
}

export class CoderVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoderVersionError';
  }
}

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export function parseCoderVersion(raw: string): CoderVersion {
  const text = raw.trim();
  const m = SEMVER.exec(text);
  if (!m) {
    const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    throw new CoderVersionError(
      `Cannot read the Coder version ${JSON.stringify(shown)}: expected vMAJOR.MINOR.PATCH as GET /api/v2/buildinfo reports it, ` +
        'for example v2.29.2+abc1234. Check that the URL points at a Coder deployment.',
    );
  }
  const prerelease = m[4] ? m[4].split('.') : [];
  return {
    raw,
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    prerelease,
    ...(m[5] ? { build: m[5] } : {}),
    devel: prerelease.includes('devel'),
  };
}

/** `v2.29.2`, `v2.30.0-rc.1`: the version without build metadata. */
export function formatCoderVersion(v: CoderVersion): string {
  return `v${v.major}.${v.minor}.${v.patch}${v.prerelease.length ? `-${v.prerelease.join('.')}` : ''}`;
}

/** Semver precedence (build metadata ignored), except that devel builds sort after every release. */
export function compareCoderVersions(a: CoderVersion, b: CoderVersion): number {
  if (a.devel !== b.devel) return a.devel ? 1 : -1;
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  return comparePrerelease(a.prerelease, b.prerelease);
}

function comparePrerelease(a: readonly string[], b: readonly string[]): number {
  // A release sorts after its own pre-releases.
  if (a.length === 0 || b.length === 0) return Math.sign(b.length - a.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Math.sign(Number(x) - Number(y));
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

/**
 * True when `POST /workspaces/{id}/builds` takes `state` (codersdk `CreateWorkspaceBuildRequest.ProvisionerState`),
 * which every 2.x release does: the migration's one write. `PUT /workspacebuilds/{id}/state` (2.27.10,
 * 2.28.7, 2.29.2, 2.30+) is not needed, so there is no floor within 2.x.
 */
export function supportsStateInBuilds(v: CoderVersion): boolean {
  return v.devel || v.major >= 2;
}

/**
 * True when "Update and Restart" first runs a stop build with the previously deployed template
 * version (coder#22201, from 2.31.1). That stop build destroys what the migrated state no longer
 * matches, so when unsure (a 2.31.1 pre-release) this says yes: the caller then takes the safe path.
 */
export function updateRestartStopsFirst(v: CoderVersion): boolean {
  if (v.devel || v.major > 2) return true;
  if (v.major < 2) return false;
  return v.minor > 31 || (v.minor === 31 && v.patch >= 1);
}

/** One line for a preflight report or a refusal. */
export function describeVersionGate(v: CoderVersion): string {
  const name = v.devel ? `${formatCoderVersion(v)} (a development build from main, treated as newest)` : formatCoderVersion(v);
  if (!supportsStateInBuilds(v)) {
    return `Coder ${name} predates Coder 2 (builds that carry a state); upgrade to any 2.x release first`;
  }
  const restart = updateRestartStopsFirst(v)
    ? '; its "Update and Restart" stops with the previous template version first, so migrated workspaces must be stopped or started pinned to the new version'
    : '';
  return `Coder ${name} takes the state inside a build (POST /workspaces/{id}/builds with state)${restart}`;
}
