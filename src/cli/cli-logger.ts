import type { Command } from 'commander';
import type { Logger } from '../adapters/logging/logger';
import { parseEncryptionKey } from '../config/encryption-key';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../config/env';
import { redactSecrets } from '../config/secret';
import type { CliIo, LogDestination } from './io';

/** Variables whose values are secrets besides the session token and the key (which leak in more forms). */
const SECRET_VARIABLES = ['SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN', 'WSMIGRATE_WEBHOOK_URL', 'WSMIGRATE_WEBHOOK_SECRET', 'WSMIGRATE_CODEC_TOKEN', 'TEMPORAL_API_KEY'];

/** Fields every line of one command repeats: in pretty text they only add noise. */
const REPEATED_FIELDS = ['service', 'component', 'command'];

const DISCARD: LogDestination = { write: () => undefined };

/**
 * Every secret the environment holds, in each form it could leak in. Read straight from the
 * variables, not through loadConfig, so even the error saying the configuration is invalid is scrubbed.
 */
export function secretsInEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const get = (name: string) => env[name]?.trim() || undefined;
  return secretForms(get('CODER_SESSION_TOKEN'), get('WSMIGRATE_ENCRYPTION_KEY'), SECRET_VARIABLES.map(get));
}

/** A session token, an encryption key and other secrets, each in every form it could leak in. */
export function secretForms(token: string | undefined, key: string | undefined, others: readonly (string | undefined)[] = []): string[] {
  const secrets: string[] = [];
  if (token) {
    secrets.push(token);
    // Coder tokens are "<id>-<secret>": the secret half alone is just as sensitive.
    if (token.includes('-')) secrets.push(token.slice(token.indexOf('-') + 1));
  }
  if (key) {
    secrets.push(key);
    const bytes = parseEncryptionKey(key);
    if (bytes) secrets.push(bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url'));
  }
  for (const value of others) if (value) secrets.push(value);
  return secrets;
}

/** Level and format from WSMIGRATE_LOG_LEVEL / WSMIGRATE_LOG_FORMAT, leniently: a bad value is loadConfig's to report. */
function settingsFromEnv(env: NodeJS.ProcessEnv): { level: LogLevel; format?: LogFormat } {
  const level = env.WSMIGRATE_LOG_LEVEL?.trim().toLowerCase() as LogLevel;
  const format = env.WSMIGRATE_LOG_FORMAT?.trim().toLowerCase() as LogFormat;
  return { level: LOG_LEVELS.includes(level) ? level : 'info', ...(LOG_FORMATS.includes(format) ? { format } : {}) };
}

/** Pretty text for a person at a terminal, JSON lines for everything else (CI, log shippers), unless WSMIGRATE_LOG_FORMAT says. */
function isPretty(destination: LogDestination, env: NodeJS.ProcessEnv): boolean {
  const { format } = settingsFromEnv(env);
  return format ? format === 'pretty' : Boolean(destination.isTTY);
}

/** `fleet start`, `state restore`: the words a user typed to reach this command. */
function commandName(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ') || cmd.name();
}

/** The command's name and what its arguments name: workflow id (with its workspace), workspace, template, gate, schedule. */
function contextOf(cmd: Command, contextOfWorkflowId: (id: string) => Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = { command: commandName(cmd) };
  cmd.registeredArguments.forEach((arg, i) => {
    const value: unknown = cmd.processedArgs?.[i];
    if (typeof value !== 'string') return;
    if (arg.name() === 'workflow-id') Object.assign(fields, contextOfWorkflowId(value));
    if (arg.name() === 'owner/workspace') fields.workspace = value;
    if (arg.name() === 'template') fields.template = value;
    if (arg.name() === 'name' && cmd.parent?.name() === 'schedule') fields.schedule = value;
  });
  const o = cmd.opts<Record<string, unknown>>();
  if (typeof o.template === 'string' && fields.template === undefined) fields.template = o.template;
  if (typeof o.gate === 'string') fields.gate = o.gate;
  return fields;
}

/**
 * The log of one CLI command, on stderr: every line with `component: "cli"`, the command, and the
 * workflow id, workspace, template and gate its arguments name; every secret of the environment
 * scrubbed. Pino loads here, so only commands that log pay for it.
 */
export async function cliLogger(io: CliIo, cmd: Command, env: NodeJS.ProcessEnv = process.env): Promise<Logger> {
  const { createLogger, contextOfWorkflowId } = await import('../adapters/logging/logger');
  const destination = io.log ?? DISCARD;
  return createLogger({
    level: settingsFromEnv(env).level,
    secrets: secretsInEnv(env),
    destination,
    pretty: isPretty(destination, env),
    prettyCompact: { ignore: REPEATED_FIELDS },
    base: { component: 'cli', ...contextOf(cmd, contextOfWorkflowId) },
  });
}

/**
 * The error that ends a command. On a terminal (or for a caller without a log) the one human line
 * `wsmigrate: <message>`; otherwise a single JSON line with level error, msg and exitCode, so CI
 * and log shippers see the failure in the same stream as the rest of the log. Scrubbed either way.
 */
export async function reportFailure(io: CliIo, cmd: Command, message: string, exitCode: number, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!io.log || isPretty(io.log, env)) {
    io.err(`wsmigrate: ${redactSecrets(message, secretsInEnv(env))}`);
    return;
  }
  (await cliLogger(io, cmd, env)).error({ exitCode }, message);
}

/** A warning before the command runs: `wsmigrate: warning: <message>` on a terminal, a JSON line with level warn otherwise. */
export async function reportWarning(io: CliIo, cmd: Command, message: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!io.log || isPretty(io.log, env)) {
    io.err(`wsmigrate: warning: ${message}`);
    return;
  }
  (await cliLogger(io, cmd, env)).warn(message);
}
