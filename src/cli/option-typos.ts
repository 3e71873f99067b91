import type { Command, Option } from 'commander';

/**
 * Commander checks required options before unknown ones, so `--templte x` is reported as a missing
 * `--template`. This finds the unknown option first, with the known one it most likely means.
 */

/** Edits (insert, delete, substitute, swap two neighbours) between two words. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known flag closest to `flag`, when it is close enough to be a typo of it. */
export function closestFlag(flag: string, known: readonly string[]): string | undefined {
  let best: { flag: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(flag, candidate);
    if (!best || distance < best.distance) best = { flag: candidate, distance };
  }
  const allowed = Math.max(1, Math.floor((flag.length - 2) / 3));
  return best && best.distance <= allowed ? best.flag : undefined;
}

/** The options `cmd` accepts: its own and its parents' (commander parses those anywhere on the line). */
function optionsOf(cmd: Command): Option[] {
  const options: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) options.push(...c.options);
  return options;
}

/**
 * "unknown option --templte; did you mean --template?" for the first option in `args` (the words
 * after the command's name) that `cmd` does not know, or undefined when every option is known.
 */
export function unknownOptionMessage(cmd: Command, args: readonly string[]): string | undefined {
  if ((cmd as unknown as { _allowUnknownOption?: boolean })._allowUnknownOption) return undefined;
  const options = optionsOf(cmd);
  const byFlag = new Map<string, Option>();
  for (const o of options) {
    if (o.long) byFlag.set(o.long, o);
    if (o.short) byFlag.set(o.short, o);
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--') return undefined;
    if (!word.startsWith('-') || word === '-' || /^-\d/.test(word)) continue;
    const [flag, inlineValue] = word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (flag === '--help' || flag === '-h') return undefined;
    const option = byFlag.get(flag);
    if (!option) {
      const hint = flag.startsWith('--') ? closestFlag(flag, [...byFlag.keys()].filter((f) => f.startsWith('--'))) : undefined;
      return hint ? `unknown option ${flag}; did you mean ${hint}?` : `unknown option ${flag}; '${['wsmigrate', commandPath(cmd)].filter(Boolean).join(' ')} --help' lists the options`;
    }
    if (inlineValue !== undefined || !(option.required || option.optional)) continue;
    if (option.variadic) while (i + 1 < args.length && !args[i + 1].startsWith('-')) i++;
    else if (option.required || (i + 1 < args.length && !args[i + 1].startsWith('-'))) i++;
  }
  return undefined;
}

function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}
