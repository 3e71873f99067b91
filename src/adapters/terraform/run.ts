import execa from 'execa';
import { terraformPath } from '../../config/tools';

export interface TerraformRunOptions {
  /** Where Terraform runs; it reads any *.tf there, so state commands get an empty dir. */
  readonly cwd: string;
  readonly timeoutMs?: number;
  /** What the command works on, for the error text (e.g. the resource address being imported). */
  readonly subject?: string;
  /** Extra environment, e.g. TF_CLI_CONFIG_FILE (a provider mirror) and KUBE_CONFIG_PATH. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface TerraformOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/** A Terraform subcommand exited non-zero. The message carries Terraform's stderr tail, never state content. */
export class TerraformCommandError extends Error {
  constructor(
    readonly subcommand: string,
    readonly exitCode: number | undefined,
    readonly stderrTail: string,
    subject?: string,
    timedOut = false,
  ) {
    const what = subject ? `terraform ${subcommand} of ${subject}` : `terraform ${subcommand}`;
    const how = timedOut ? 'timed out' : `failed (exit ${exitCode ?? 'unknown'})`;
    super(`${what} ${how}: ${stderrTail || '(no output on stderr)'}`);
    this.name = 'TerraformCommandError';
  }
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const STDERR_TAIL_LINES = 15;

/**
 * Runs `terraform ARGS` with -no-color after the subcommand (`state rm`, `import`, ...) and returns
 * its output. The only place that starts Terraform. CHECKPOINT_DISABLE stops the version check
 * calling home; TF_IN_AUTOMATION drops hints that assume a human at a terminal.
 */
export async function runTerraform(args: readonly string[], opts: TerraformRunOptions): Promise<TerraformOutput> {
  const binary = terraformPath();
  const words = args[0] === 'state' ? 2 : 1;
  const subcommand = args.slice(0, words);
  const result = await execa(binary, [...subcommand, '-no-color', ...args.slice(words)], {
    cwd: opts.cwd,
    env: { ...opts.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
    extendEnv: true,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    stripFinalNewline: false,
  });
  if (result.exitCode !== 0 || result.timedOut) {
    throw new TerraformCommandError(subcommand.join(' '), result.exitCode, stderrTail(result.stderr || result.stdout), opts.subject, result.timedOut);
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * What Terraform said went wrong: from its first "Error:" line on (warnings before it, such as a
 * missing CLI config file, are noise here), else the last lines; box drawing and colour removed.
 */
function stderrTail(stderr: string): string {
  const lines = stderr
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split(/\r?\n/)
    .map((line) => line.replace(/^[╷│╵]\s?/, '').trimEnd())
    .filter((line) => line.trim() !== '');
  const firstError = lines.findIndex((line) => line.startsWith('Error:'));
  return firstError >= 0 ? lines.slice(firstError, firstError + STDERR_TAIL_LINES).join('\n') : lines.slice(-STDERR_TAIL_LINES).join('\n');
}
