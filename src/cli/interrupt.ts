import type { CliIo } from './io';

/** 128 + SIGINT: what a shell reports for a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

/**
 * While a command waits on a run, Ctrl-C stops the waiting, not the run: say so, and how to
 * re-attach, then exit 130. Returns the function that removes the handler once the wait ends.
 */
export function explainInterrupt(io: CliIo, workflowId: string, reattach: string, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const onInterrupt = () => {
    io.err(`\nstopped waiting; ${workflowId} goes on in Temporal (Ctrl-C does not cancel it).\n  re-attach: ${reattach}`);
    exit(EXIT_INTERRUPTED);
  };
  process.once('SIGINT', onInterrupt);
  return () => process.removeListener('SIGINT', onInterrupt);
}
