import { isIP } from 'node:net';
import { checkHttpUrl } from '../domain/http-url';
import { apparentKeyBytes, KEY_BYTES, parseEncryptionKey } from './encryption-key';
import { Secret } from './secret';

/**
 * The parsers of the variable table (`env.ts`): each takes the raw, trimmed, non-empty value and
 * returns what the config holds, or throws an EnvProblem whose message names the variable, what is
 * wrong and an example of a right value. A parser for a secret never echoes the value.
 */
export class EnvProblem extends Error {}

export type EnvParser<T> = (raw: string, variable: string) => T;

/** Echoes a non-secret value back in an error, short and quoted so blanks and odd characters show. */
export function shown(raw: string): string {
  return JSON.stringify(raw.length > 80 ? `${raw.slice(0, 77)}...` : raw);
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;
const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

export const text: EnvParser<string> = (raw) => raw;

export const hostPort: EnvParser<string> = (raw, variable) => {
  const match = HOST_PORT.exec(raw);
  if (!match || Number(match[3]) < 1 || Number(match[3]) > 65535) {
    throw new EnvProblem(`${variable} must be host:port of the Temporal frontend (got ${shown(raw)}); e.g. ${variable}=127.0.0.1:7233`);
  }
  return raw;
};

export function word(example: string, what = 'a single word'): EnvParser<string> {
  return (raw, variable) => {
    if (/\s/.test(raw)) throw new EnvProblem(`${variable} must be ${what} without spaces (got ${shown(raw)}); e.g. ${variable}=${example}`);
    return raw;
  };
}

/** An integer in [min, max]; `advice` ends the message (what to set it to, and why). */
export function integer(min: number, max: number, advice: string): EnvParser<number> {
  return (raw, variable) => {
    const value = Number(raw);
    if (!/^\d{1,5}$/.test(raw) || value < min || value > max) {
      throw new EnvProblem(`${variable} must be an integer from ${min} to ${max} (got ${shown(raw)}); ${advice}`);
    }
    return value;
  };
}

export function port(min: 0 | 1, example: number, purpose = ''): EnvParser<number> {
  return (raw, variable) => integer(min, 65535, `e.g. ${variable}=${example}${purpose}`)(raw, variable);
}

export function oneOf<T extends string>(values: readonly T[], advice: (variable: string) => string): EnvParser<T> {
  return (raw, variable) => {
    const value = raw.toLowerCase() as T;
    if (!values.includes(value)) throw new EnvProblem(`${variable} must be one of ${values.join(', ')} (got ${shown(raw)}); ${advice(variable)}`);
    return value;
  };
}

export const bool: EnvParser<boolean> = (raw, variable) => {
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new EnvProblem(`${variable} must be true or false (got ${shown(raw)}); e.g. ${variable}=true`);
};

export const bindHost: EnvParser<string> = (raw, variable) => {
  if (isIP(raw) === 0 && !(HOSTNAME.test(raw) && !/^[\d.]+$/.test(raw))) {
    throw new EnvProblem(`${variable} must be an address to bind to, without a port (got ${shown(raw)}); e.g. ${variable}=0.0.0.0 in a container, 127.0.0.1 on a laptop`);
  }
  return raw;
};

interface UrlWording {
  /** What the URL is, for "must be an absolute http(s) URL of …". */
  of?: string;
  example: string;
  /** The end of "<VARIABLE> must not contain …" when the URL holds a user or password: what it must not hold, and what to do instead. */
  credentials?: string;
}

/** An http(s) URL as its normalized href; the value is never echoed (a URL may carry credentials). */
export function httpUrl(wording: UrlWording): EnvParser<URL> {
  return (raw, variable) => {
    const checked = checkHttpUrl(raw);
    if (checked.ok) return checked.url;
    const example = `e.g. ${variable}=${wording.example}`;
    if (checked.problem === 'not-a-url') throw new EnvProblem(`${variable} must be an absolute http(s) URL${wording.of ? ` of ${wording.of}` : ''} (it does not parse as a URL); ${example}`);
    if (checked.problem === 'not-http') throw new EnvProblem(`${variable} must use http:// or https:// (got scheme ${shown(checked.url?.protocol ?? '')}); ${example}`);
    throw new EnvProblem(`${variable} must not contain ${wording.credentials ?? `a user name or password; ${example}`}`);
  };
}

/** A credential: any value without spaces; never echoed. */
export function secret(hint: string, what?: string): EnvParser<Secret> {
  return (raw, variable) => {
    if (/\s/.test(raw)) throw new EnvProblem(`${variable} ${what ? `must be ${what} without spaces or newlines` : 'must not contain spaces or newlines'}; ${hint}`);
    return Secret.of(raw);
  };
}

export const codecToken: EnvParser<Secret> = (raw, variable) => {
  if (raw.length < 16 || /\s/.test(raw)) throw new EnvProblem(`${variable} must be at least 16 characters without spaces; generate one with: openssl rand -hex 24`);
  return Secret.of(raw);
};

export const encryptionKey: EnvParser<Buffer> = (raw, variable) => {
  const key = parseEncryptionKey(raw);
  if (key) return key;
  const bytes = apparentKeyBytes(raw);
  const got = bytes === undefined ? 'got something that is neither hex nor base64' : `got ${bytes} bytes`;
  throw new EnvProblem(`${variable} must be ${KEY_BYTES} bytes as 64 hex characters or base64 (${got}); generate one with: openssl rand -hex 32`);
};

export const nameList: EnvParser<string[]> = (raw, variable) => {
  const names = raw.split(',').map((n) => n.trim()).filter((n) => n.length > 0);
  const bad = names.filter((n) => /\s/.test(n));
  if (bad.length > 0) {
    throw new EnvProblem(`${variable} must be a comma-separated list of user names without spaces (${bad.map(shown).join(', ')} has a space); e.g. ${variable}=alice,bob`);
  }
  return [...new Set(names)];
};

export const singleName: EnvParser<string> = (raw, variable) => {
  if (/[\s,]/.test(raw)) throw new EnvProblem(`${variable} must be one name without spaces or commas (got ${shown(raw)}); e.g. ${variable}=alice`);
  return raw;
};

/** 'U0123ABCD=alice,U0456EFGH=bob' → { U0123ABCD: 'alice', U0456EFGH: 'bob' }. */
export const slackApprovers: EnvParser<Record<string, string>> = (raw, variable) => {
  const map: Record<string, string> = {};
  for (const pair of raw.split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
    const [id, approver, extra] = pair.split('=').map((p) => p.trim());
    if (!id || !approver || extra !== undefined || !SLACK_USER_ID.test(id) || /\s/.test(approver)) {
      throw new EnvProblem(
        `${variable} must be comma-separated SlackUserId=approver pairs (got ${shown(pair)}); e.g. ${variable}=U0123ABCD=alice,U0456EFGH=bob (the user id is in the Slack profile, "Copy member ID")`,
      );
    }
    map[id] = approver;
  }
  return map;
};

/** Wraps a parser that throws plain Errors (a shared domain parser) so its message becomes the problem. */
export function fromErrors<T>(parse: (raw: string, variable: string) => T): EnvParser<T> {
  return (raw, variable) => {
    try {
      return parse(raw, variable);
    } catch (err) {
      throw new EnvProblem((err as Error).message);
    }
  };
}

/** Seconds between two passes of a loop: `60`, `60s`, `2m`; `0` or `off` turns it off (0). */
export function interval(maxSeconds: number, advice: string): EnvParser<number> {
  return (raw, variable) => {
    if (/^(off|0+)$/i.test(raw)) return 0;
    const m = /^(\d{1,5})\s*(s|m)?$/i.exec(raw);
    const seconds = m ? Number(m[1]) * (m[2]?.toLowerCase() === 'm' ? 60 : 1) : NaN;
    if (!(seconds >= 1 && seconds <= maxSeconds)) {
      throw new EnvProblem(`${variable} must be a number of seconds from 1 to ${maxSeconds} (e.g. 60, 60s or 1m), or off (got ${shown(raw)}); ${advice}`);
    }
    return seconds;
  };
}
