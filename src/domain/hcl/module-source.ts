/**
 * A module `source` as it may appear in an error: a source address can carry credentials
 * (`git::https://user:token@host/…`, `?sshkey=…`, `s3::…?aws_access_key_secret=…`), which must
 * never reach logs, workflow history or error text.
 */
export function redactModuleSource(source: string | undefined): string {
  if (source === undefined) return '(not a literal string)';
  const withoutUserinfo = source.replace(/(\/\/)([^/@?#]*)@/, (_m, slashes: string, userinfo: string) =>
    userinfo.includes(':') ? `${slashes}***@` : `${slashes}${userinfo}@`,
  );
  return withoutUserinfo.replace(/([?&])([^=&#]+)=([^&#]*)/g, (m, sep: string, name: string) =>
    /key|token|secret|password|passwd|signature|credential|auth/i.test(name) ? `${sep}${name}=***` : m,
  );
}
