import { Command } from 'commander';
import { CliError, EXIT, type CliIo } from '../../src/cli/io';

export interface CliRun {
  out: string;
  err: string;
  exitCode: number;
  /** What was printed, one entry per write (`out` and `err` are these joined by newlines). */
  outLines: string[];
  errLines: string[];
}

/** Runs one command module in-process, collecting what it prints and the exit code main would return. */
export async function runCommand(register: (program: Command, io: CliIo) => void, ...args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const program = new Command();
  program.exitOverride();
  program.configureOutput({ writeOut: (t) => out.push(t), writeErr: (t) => err.push(t) });
  register(program, io);
  let exitCode: number = EXIT.ok;
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CliError) {
      exitCode = error.exitCode;
      err.push(error.message);
    } else if (error instanceof Error && 'exitCode' in error) {
      exitCode = (error as { exitCode: number }).exitCode;
    } else {
      throw error;
    }
  }
  return { out: out.join('\n'), err: err.join('\n'), exitCode, outLines: out, errLines: err };
}

/**
 * Runs `wsmigrate ARGS` through main, as the binary does (commander's own errors, the final error
 * line, the exit code), collecting what it prints. No `log` destination: failures print as text.
 */
export async function runMain(...args: string[]): Promise<CliRun> {
  const { main } = await import('../../src/cli/main');
  const out: string[] = [];
  const err: string[] = [];
  const exitCode = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { out: out.join('\n'), err: err.join('\n'), exitCode, outLines: out, errLines: err };
}
