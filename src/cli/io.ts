import { failureText, failureTypeOf } from '../client/failure-text';
import { FailureType } from '../contracts/failures';

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

/** Failure types of a run that said no (a precondition, a guard, a person): README's "denied/refused". */
const REFUSAL_TYPES: ReadonlySet<string> = new Set([FailureType.refused, FailureType.dormant, FailureType.rejected, FailureType.guardDenied, FailureType.busy]);

/** Failure types of a run given a name Coder does not know, or an input no workflow takes: README's "usage". */
const USAGE_TYPES = new Set(['CoderApi.not-found', 'WsmigrateUnknownName', 'WsmigrateInvalidInput']);

/**
 * The exit code for an error that is not a CliError: 3 when the run it reports was refused, 2 when
 * Coder knows no such workspace, owner or template (a name typed wrong, as `scan` says) or the input is
 * one no workflow takes, 1 otherwise.
 */
export function exitCodeOf(err: unknown): number {
  return exitCodeOfFailureType(failureTypeOf(err));
}

/** The same, from a failed run's failure type as `status` reads it. */
export function exitCodeOfFailureType(type: string | undefined): number {
  if (type && USAGE_TYPES.has(type)) return EXIT.usage;
  return type && REFUSAL_TYPES.has(type) ? EXIT.denied : EXIT.failure;
}

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

/** A refusal from the client (not an approver, nothing pending) as the CLI's "denied" error; anything else as it is. */
export function asCliRefusal(err: unknown): unknown {
  return (err as { name?: string } | null)?.name === 'RefusedError' ? new CliError((err as Error).message, EXIT.denied) : err;
}

/** An error's message and its causes' (details arrays included), for the one line a failed command ends with. */
export function describeError(err: unknown): string {
  return failureText(err);
}
