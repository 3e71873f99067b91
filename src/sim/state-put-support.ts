/**
 * Whether a Coder release serves PUT /workspacebuilds/{id}/state (PR #21374 and its backports):
 * 2.27.10+, 2.28.7+, 2.29.2+ and every 2.30+. Dev builds (v0.0.0-devel) are main, so they do.
 * Anything unparsable is treated as not supporting it, as an old server would answer.
 */
export function supportsStatePut(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major === 0 && minor === 0 && patch === 0 && version.includes('devel')) return true;
  if (major !== 2) return major > 2;
  if (minor >= 30) return true;
  const firstPatch: Record<number, number> = { 27: 10, 28: 7, 29: 2 };
  const needed = firstPatch[minor];
  return needed !== undefined && patch >= needed;
}
