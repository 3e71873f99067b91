/**
 * Joining texts that each may or may not end with a full stop (an error's message, a hint) into one
 * message: each gets exactly one, never "backup.. Nothing". Empty parts are left out.
 */
const ENDS_SENTENCE = /[.!?]$/;

/** The parts as sentences: each but the last ends with a full stop (added only when missing); the last is left as it is. */
export function joinSentences(...parts: readonly (string | undefined)[]): string {
  const kept = parts.map((p) => (p ?? '').trim()).filter((p) => p !== '');
  return kept.map((p, i) => (i < kept.length - 1 && !ENDS_SENTENCE.test(p) ? `${p}.` : p)).join(' ');
}

/** `text` with an aside in parentheses inside its last sentence: "…every backup (gave up after 3 attempts)." */
export function withAside(text: string, aside: string): string {
  const t = text.trimEnd();
  const stop = /[.!?]$/.exec(t);
  return stop ? `${t.slice(0, -1)} (${aside})${stop[0]}` : `${t} (${aside})`;
}
