/** `dev-*` → /^dev-.*$/i: a workspace-name glob, whole name, any case; only `*` and `?` are special. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}
