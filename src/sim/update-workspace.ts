import type { ParameterFlow } from './template-parameters';

/**
 * Whether the Coder UI's "Update" (site/src/api/api.ts `updateWorkspace`) of a running workspace first posts
 * a stop (no version: the previous build's) and waits for it, before the start pinned to the active version.
 *
 * - classic parameter flow: from 2.24.0 (PR #18425 added the stop to `updateWorkspace`'s classic branch);
 * - dynamic parameter flow: only from 2.31.1 (PR #22201, fixing #20333): before it, the `isDynamicParametersEnabled`
 *   branch posts `{transition: "start", template_version_id: activeVersionId}` straight away, on the
 *   running workspace's state, and a 400 with `validations` becomes the UI's parameter dialog.
 * Before 2.24.0 neither flow stops first. A version that does not parse, or a development build (main),
 * is taken as the newest.
 */
export function updateStopsFirst(version: string, flow: ParameterFlow): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return true;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major === 0 && minor === 0 && patch === 0 && version.includes('devel')) return true;
  if (major !== 2) return major > 2;
  if (minor > 31 || (minor === 31 && patch >= 1)) return true;
  return flow === 'classic' && minor >= 24;
}
