/**
 * Where a command writes: `out` its result (stdout), `err` human text (stderr), `log` its log lines
 * (stderr; JSON unless a terminal). Tests pass collectors; without `log` a command logs nothing.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  log?: LogDestination;
}

export interface LogDestination {
  write(line: string): unknown;
  isTTY?: boolean;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  log: process.stderr,
};

/** A failure the user can act on: main prints the message (no stack) and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Exit codes shared by every command, so scripts can tell "refused" from "broken". */
export const EXIT = { ok: 0, failure: 1, usage: 2, denied: 3, changesPending: 4 } as const;

/** 128 + SIGPIPE: what `cat`, `git` and `yes` exit with when the reader of their output goes away. */
export const EXIT_CLOSED_PIPE = 141;

/**
 * `wsmigrate --help | head -1`: once the reader has gone, further output has nowhere to go, so the
 * process ends quietly instead of dying on an unhandled EPIPE with a stack trace.
 */
export function endQuietlyWhenOutputCloses(stream: NodeJS.WriteStream, exit: (code: number) => void = process.exit): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') exit(EXIT_CLOSED_PIPE);
    else throw err;
  });
}

/**
 * An error's message followed by each cause's that it does not already contain, so a wrapper like
 * "Failed to start Workflow" never hides the reason underneath.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let text = '';
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { message, details } = e as { message?: string; details?: string };
    const own = (details || message || String(e)).trim();
    if (own && !text.includes(own)) {
      parts.push(own);
      text += ` ${own}`;
    }
  }
  return parts.join(': ');
}
