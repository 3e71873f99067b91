/** Why a string is not a usable http(s) URL; each caller words the message for its own setting. */
export type HttpUrlProblem = 'not-a-url' | 'not-http' | 'has-credentials';

/** One check for every http(s) URL wsmigrate is given (Coder, S3, Slack, webhooks): absolute, http or https, no user:password. */
export function checkHttpUrl(raw: string): { ok: true; url: URL } | { ok: false; problem: HttpUrlProblem; url?: URL } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'not-a-url' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'not-http', url };
  if (url.username || url.password) return { ok: false, problem: 'has-credentials', url };
  return { ok: true, url };
}
