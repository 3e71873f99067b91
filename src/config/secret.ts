import { inspect } from 'node:util';

export const REDACTED = '[redacted]';

/**
 * A value that must never reach a log, an error message, workflow history or a search attribute.
 * Every way JavaScript turns an object into text (String, template literals, JSON, util.inspect,
 * console) yields '[redacted]'; only `reveal()` gives the value, so each use of it is greppable.
 */
export class Secret {
  // An ES private field: invisible to JSON.stringify, Object.keys, spread and util.inspect.
  readonly #value: string;

  private constructor(value: string) {
    this.#value = value;
  }

  static of(value: string): Secret {
    return new Secret(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): typeof REDACTED {
    return REDACTED;
  }

  toJSON(): typeof REDACTED {
    return REDACTED;
  }

  [Symbol.toPrimitive](): typeof REDACTED {
    return REDACTED;
  }

  [inspect.custom](): typeof REDACTED {
    return REDACTED;
  }
}

/** The encodings in which a secret typically leaks into text: raw, base64 (padded, unpadded, url-safe), URL-encoded. */
function leakedForms(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const forms = [value, base64, base64.replace(/=+$/, ''), Buffer.from(value, 'utf8').toString('base64url'), encodeURIComponent(value)];
  return forms.filter((form) => form.length > 0);
}

/**
 * Replaces every occurrence of each secret (and its base64 and URL-encoded forms) in `text` with
 * '[redacted]'. Use it on text that comes from outside (a subprocess's stderr, an HTTP body) before
 * it goes into an error or a log.
 */
export function redactSecrets(text: string, secrets: (string | Secret | undefined)[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined) continue;
    const value = secret instanceof Secret ? secret.reveal() : secret;
    if (value.length === 0) continue;
    for (const form of leakedForms(value)) forms.add(form);
  }
  // Longest first, so a secret that contains another is replaced whole rather than in pieces.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  let redacted = text;
  for (const form of ordered) redacted = redacted.split(form).join(REDACTED);
  return redacted;
}
