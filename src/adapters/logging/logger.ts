import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { redactSecrets, REDACTED, type Secret } from '../../config/secret';

export type { Logger };

/** Field names whose values are never written, wherever they appear one level deep. */
const SECRET_FIELDS = ['token', 'sessionToken', 'password', 'secret', 'authorization', 'key', 'encryptionKey', 'signingSecret', 'stateText', 'state'];

/** A lifecycle word such as the SDK's worker `state: 'RUNNING'`: not a Terraform state, so it is shown. */
const LIFECYCLE_WORD = /^[A-Z][A-Z_]{0,31}$/;

function censor(value: unknown, path: string[]): unknown {
  return path[path.length - 1] === 'state' && typeof value === 'string' && LIFECYCLE_WORD.test(value) ? value : REDACTED;
}

export interface LoggerOptions {
  level: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Known secret values (tokens, keys): scrubbed from every line, whatever field or message carries them. */
  secrets?: readonly (string | Secret | undefined)[];
  /** Human-readable colours instead of JSON; by default when the destination is a terminal. */
  pretty?: boolean;
  /** Pretty text only: fields left out (those every line repeats) and the rest on the message's own line. */
  prettyCompact?: { ignore: readonly string[] };
  destination?: { write(line: string): unknown; isTTY?: boolean };
  /** Fields on every line, e.g. { component: 'worker' }. */
  base?: Record<string, unknown>;
}

/**
 * The one logger of a wsmigrate process: JSON lines (one object per line, ISO time, level as a word)
 * for log collectors, or pretty text on a terminal. Every line passes through a scrubber that
 * replaces known secret values, so a token that slips into an error message still never lands.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const out = opts.destination ?? process.stderr;
  const secrets = [...(opts.secrets ?? [])];
  const scrub = (text: string) => (secrets.length > 0 ? redactSecrets(text, secrets) : text);
  const scrubbed = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      out.write(scrub(chunk.toString()));
      done();
    },
  });
  const pretty = opts.pretty ?? Boolean(out.isTTY);
  const compact = opts.prettyCompact ? { singleLine: true, ignore: ['pid', 'hostname', ...opts.prettyCompact.ignore].join(',') } : {};
  const stream = pretty ? pinoPretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', destination: scrubbed, ...compact }) : { write: (line: string) => void out.write(scrub(line)) };
  return pino(
    {
      level: opts.level,
      base: { service: 'wsmigrate', ...opts.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]), censor },
    },
    stream,
  );
}

/**
 * Where a line belongs, from a workflow id: `wsmigrate/<template>/<owner>/<workspace>` names a
 * workspace migration, `wsmigrate-template/<org>/<template>` a template one.
 */
export function contextOfWorkflowId(workflowId: string | undefined): { workflowId?: string; workspace?: string; template?: string } {
  if (!workflowId) return {};
  const ws = /^wsmigrate\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(workflowId);
  if (ws) return { workflowId, template: ws[1], workspace: `${ws[2]}/${ws[3]}` };
  const tpl = /^wsmigrate-template\/[^/]+\/([^/]+)$/.exec(workflowId);
  if (tpl) return { workflowId, template: tpl[1] };
  return { workflowId };
}
