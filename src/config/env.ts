import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { formatLocation, parseLocation } from '../adapters/blob-ref';
import { encryptionKeyId, KEY_BYTES } from '../adapters/crypto';
import { Secret } from './secret';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export interface WsmigrateConfig {
  readonly temporalAddress: string;
  readonly temporalNamespace: string;
  readonly taskQueue: string;
  /** Normalized href, e.g. 'https://coder.example.com/'. */
  readonly coderUrl?: string;
  readonly coderSessionToken?: Secret;
  /** Absolute. */
  readonly blobDir: string;
  /** Where backups live: `file://<blobDir>` unless WSMIGRATE_BLOB_URL says `s3://bucket/prefix`. */
  readonly blobUrl: string;
  /** S3-compatible endpoint (unset: AWS). Credentials come only from the AWS credential chain, never from here. */
  readonly s3Endpoint?: string;
  readonly s3Region?: string;
  readonly s3ForcePathStyle: boolean;
  /** The 32-byte key as 64 hex characters, whatever form it was given in; see `encryptionKeyBytes`. */
  readonly encryptionKey?: Secret;
  /** Public id of the key (a hash), shown so client and worker can be checked to share one. */
  readonly encryptionKeyId?: string;
  /** 0 disables the Prometheus endpoint. */
  readonly metricsPort: number;
  /** Address the metrics/health endpoint binds to: loopback on a laptop, 0.0.0.0 in a container. */
  readonly metricsHost: string;
  readonly logLevel: LogLevel;
  /** JSON lines or human text on stderr; unset: pretty exactly when stderr is a terminal. */
  readonly logFormat?: LogFormat;
  readonly approvers: readonly string[];
  readonly uiPort: number;
  /** Activities one worker runs at once; each awaited Coder build holds one for its whole duration. */
  readonly workerActivitySlots: number;
  /** Who `wsmigrate approve/reject` decide as when --approver is not given. */
  readonly approver?: string;
  /** Chat and notifications (see README "Approvals from Slack"). */
  readonly slackSigningSecret?: Secret;
  readonly slackBotToken?: Secret;
  readonly slackChannel?: string;
  /** Normalized href of the Slack Web API, e.g. 'https://slack.com/api/'; tests point it at a fake. */
  readonly slackApiUrl?: string;
  readonly chatopsPort: number;
  /** Slack user id → approver name. */
  readonly slackApprovers: Readonly<Record<string, string>>;
  /** A Secret: webhook URLs often carry a token in their path. */
  readonly webhookUrl?: Secret;
  readonly webhookSecret?: Secret;
  /** Bearer token the codec server requires, when set. */
  readonly codecToken?: Secret;
  /** Undefined: plain TCP (the dev server). */
  readonly temporalTls?: TemporalTls;
  readonly temporalApiKey?: Secret;
  /** Absolute; set when the worker may run `terraform import` (the import strategy) against this cluster. */
  readonly kubeconfig?: string;
  /** Names of the variables that were unset and took their default. */
  readonly defaulted: readonly string[];
}

/** How to reach a Temporal cluster that is not a local dev server: TLS, mTLS, or a Temporal Cloud API key. */
export interface TemporalTls {
  /** PEM of the CA that signed the server's certificate; absent: the system's roots. */
  readonly caPem?: Buffer;
  /** Client certificate (PEM) and its key, for mTLS. */
  readonly clientCertPem?: Buffer;
  readonly clientKeyPem?: Secret;
  readonly serverName?: string;
  /** Where each came from, for `wsmigrate config`. */
  readonly paths: { ca?: string; cert?: string; key?: string };
}

export interface CoderConnection {
  readonly url: string;
  readonly sessionToken: Secret;
}

/** One or more variables are wrong; `problems` has one sentence per variable, the message all of them. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

export const DEFAULTS = {
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  TEMPORAL_NAMESPACE: 'default',
  WSMIGRATE_TASK_QUEUE: 'wsmigrate',
  WSMIGRATE_BLOB_DIR: '.wsmigrate/blobs',
  WSMIGRATE_METRICS_PORT: 9464,
  WSMIGRATE_METRICS_HOST: '127.0.0.1',
  WSMIGRATE_LOG_LEVEL: 'info' as LogLevel,
  WSMIGRATE_UI_PORT: 8233,
  // A fleet runs at most 200 workspaces at once, each awaiting at most one build.
  WSMIGRATE_WORKER_ACTIVITY_SLOTS: 200,
  WSMIGRATE_CHATOPS_PORT: 3100,
} as const;

/** Echoes a non-secret value back in an error, short and quoted so blanks and odd characters show. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 80 ? `${raw.slice(0, 77)}...` : raw);
}

type Ctx = z.RefinementCtx;
function fail(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

function temporalAddress() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return DEFAULTS.TEMPORAL_ADDRESS;
      const match = HOST_PORT.exec(raw);
      if (!match || Number(match[3]) < 1 || Number(match[3]) > 65535) {
        return fail(ctx, `TEMPORAL_ADDRESS must be host:port of the Temporal frontend (got ${shown(raw)}); e.g. TEMPORAL_ADDRESS=127.0.0.1:7233`);
      }
      return raw;
    });
}

function name(variable: string, fallback: string, example: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      if (/\s/.test(raw)) {
        return fail(ctx, `${variable} must be a single word without spaces (got ${shown(raw)}); e.g. ${variable}=${example}`);
      }
      return raw;
    });
}

function coderUrl() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      // The value is not echoed: a URL may carry credentials.
      const example = 'e.g. CODER_URL=https://coder.example.com';
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return fail(ctx, `CODER_URL must be an absolute http(s) URL of the Coder deployment (it does not parse as a URL); ${example}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        return fail(ctx, `CODER_URL must use http:// or https:// (got scheme ${shown(url.protocol)}); ${example}`);
      }
      if (url.username || url.password) {
        return fail(ctx, `CODER_URL must not contain a user name or password; put the token in CODER_SESSION_TOKEN; ${example}`);
      }
      return url.href;
    });
}

function sessionToken() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (/\s/.test(raw)) {
        return fail(ctx, 'CODER_SESSION_TOKEN must be a Coder API token without spaces or newlines; create one with: coder tokens create');
      }
      return Secret.of(raw);
    });
}

const HEX_KEY = /^[0-9A-Fa-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]*={0,2}|[A-Za-z0-9_-]*={0,2})$/;

/** How many bytes the operator probably meant, for the error; undefined when it is neither hex nor base64. */
function apparentKeyBytes(raw: string): number | undefined {
  if (/^[0-9A-Fa-f]+$/.test(raw) && raw.length % 2 === 0) return raw.length / 2;
  if (BASE64.test(raw)) return Buffer.from(raw, 'base64').length;
  return undefined;
}

/** Accepts 64 hex characters or base64 (standard or url-safe) of exactly 32 bytes. */
export function parseEncryptionKey(raw: string): Buffer | undefined {
  if (HEX_KEY.test(raw)) return Buffer.from(raw, 'hex');
  if (BASE64.test(raw)) {
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  return undefined;
}

function encryptionKey() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const key = parseEncryptionKey(raw);
      if (!key) {
        const bytes = apparentKeyBytes(raw);
        const got = bytes === undefined ? 'got something that is neither hex nor base64' : `got ${bytes} bytes`;
        return fail(
          ctx,
          `WSMIGRATE_ENCRYPTION_KEY must be ${KEY_BYTES} bytes as 64 hex characters or base64 (${got}); generate one with: openssl rand -hex 32`,
        );
      }
      return key;
    });
}

function port(variable: string, fallback: number, min: 0 | 1, purpose: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const value = Number(raw);
      if (!/^\d{1,5}$/.test(raw) || value < min || value > 65535) {
        return fail(ctx, `${variable} must be an integer from ${min} to 65535 (got ${shown(raw)}); e.g. ${variable}=${fallback}${purpose}`);
      }
      return value;
    });
}

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

function bindHost() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return DEFAULTS.WSMIGRATE_METRICS_HOST;
      if (isIP(raw) === 0 && !(HOSTNAME.test(raw) && !/^[\d.]+$/.test(raw))) {
        return fail(
          ctx,
          `WSMIGRATE_METRICS_HOST must be an address to bind to, without a port (got ${shown(raw)}); e.g. WSMIGRATE_METRICS_HOST=0.0.0.0 in a container, 127.0.0.1 on a laptop`,
        );
      }
      return raw;
    });
}

function codecToken() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (raw.length < 16 || /\s/.test(raw)) {
        return fail(ctx, 'WSMIGRATE_CODEC_TOKEN must be at least 16 characters without spaces; generate one with: openssl rand -hex 24');
      }
      return Secret.of(raw);
    });
}

function slots() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return DEFAULTS.WSMIGRATE_WORKER_ACTIVITY_SLOTS;
      const value = Number(raw);
      if (!/^\d{1,4}$/.test(raw) || value < 1 || value > 2000) {
        return fail(
          ctx,
          `WSMIGRATE_WORKER_ACTIVITY_SLOTS must be an integer from 1 to 2000 (got ${shown(raw)}); set it at least to the highest fleet concurrency, e.g. WSMIGRATE_WORKER_ACTIVITY_SLOTS=200`,
        );
      }
      return value;
    });
}

function logLevel() {
  return z
    .string()
    .optional()
    .transform((raw, ctx): LogLevel => {
      if (raw === undefined) return DEFAULTS.WSMIGRATE_LOG_LEVEL;
      const level = raw.toLowerCase() as LogLevel;
      if (!LOG_LEVELS.includes(level)) {
        return fail(ctx, `WSMIGRATE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${shown(raw)}); e.g. WSMIGRATE_LOG_LEVEL=debug`);
      }
      return level;
    });
}

function logFormat() {
  return z
    .string()
    .optional()
    .transform((raw, ctx): LogFormat | undefined => {
      if (raw === undefined) return undefined;
      const format = raw.toLowerCase() as LogFormat;
      if (!LOG_FORMATS.includes(format)) {
        return fail(ctx, `WSMIGRATE_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got ${shown(raw)}); unset it to get pretty text on a terminal and JSON lines elsewhere`);
      }
      return format;
    });
}

function approvers() {
  return z
    .string()
    .optional()
    .transform((raw, ctx): string[] => {
      if (raw === undefined) return [];
      const names = raw.split(',').map((n) => n.trim()).filter((n) => n.length > 0);
      const bad = names.filter((n) => /\s/.test(n));
      if (bad.length > 0) {
        return fail(
          ctx,
          `WSMIGRATE_APPROVERS must be a comma-separated list of user names without spaces (${bad.map(shown).join(', ')} has a space); e.g. WSMIGRATE_APPROVERS=alice,bob`,
        );
      }
      return [...new Set(names)];
    });
}

/** A secret credential: any non-blank value without spaces; never echoed. */
function secretValue(variable: string, hint: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (/\s/.test(raw)) return fail(ctx, `${variable} must not contain spaces or newlines; ${hint}`);
      return Secret.of(raw);
    });
}

function httpUrl(variable: string, example: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return fail(ctx, `${variable} must be an absolute http(s) URL (it does not parse as a URL); e.g. ${variable}=${example}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail(ctx, `${variable} must use http:// or https://; e.g. ${variable}=${example}`);
      if (url.username || url.password) return fail(ctx, `${variable} must not contain a user name or password; e.g. ${variable}=${example}`);
      return url.href;
    });
}

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** 'U0123ABCD=alice,U0456EFGH=bob' → { U0123ABCD: 'alice', U0456EFGH: 'bob' }. */
function slackApprovers() {
  return z
    .string()
    .optional()
    .transform((raw, ctx): Record<string, string> => {
      if (raw === undefined) return {};
      const map: Record<string, string> = {};
      for (const pair of raw.split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
        const [id, approver, extra] = pair.split('=').map((p) => p.trim());
        if (!id || !approver || extra !== undefined || !SLACK_USER_ID.test(id) || /\s/.test(approver)) {
          return fail(
            ctx,
            `WSMIGRATE_SLACK_APPROVERS must be comma-separated SlackUserId=approver pairs (got ${shown(pair)}); e.g. WSMIGRATE_SLACK_APPROVERS=U0123ABCD=alice,U0456EFGH=bob (the user id is in the Slack profile, "Copy member ID")`,
          );
        }
        map[id] = approver;
      }
      return map;
    });
}

function approverName() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (/[\s,]/.test(raw)) return fail(ctx, `WSMIGRATE_APPROVER must be one name without spaces or commas (got ${shown(raw)}); e.g. WSMIGRATE_APPROVER=alice`);
      return raw;
    });
}

function slackChannel() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (/\s/.test(raw)) return fail(ctx, `SLACK_CHANNEL must be a channel id or #name without spaces (got ${shown(raw)}); e.g. SLACK_CHANNEL=C0123ABCD`);
      return raw;
    });
}

function blobUrl() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      try {
        return formatLocation(parseLocation(raw, 'WSMIGRATE_BLOB_URL'));
      } catch (err) {
        return fail(ctx, (err as Error).message);
      }
    });
}

function s3Endpoint() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const example = 'e.g. WSMIGRATE_S3_ENDPOINT=https://minio.internal:9000 (unset for AWS S3)';
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return fail(ctx, `WSMIGRATE_S3_ENDPOINT must be an http(s) URL of the S3-compatible server; ${example}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail(ctx, `WSMIGRATE_S3_ENDPOINT must use http:// or https://; ${example}`);
      if (url.username || url.password) {
        return fail(ctx, 'WSMIGRATE_S3_ENDPOINT must not contain credentials; give them through AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, or an IAM role)');
      }
      return raw.replace(/\/+$/, '');
    });
}

function bool(variable: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      return fail(ctx, `${variable} must be true or false (got ${shown(raw)}); e.g. ${variable}=true`);
    });
}

const envSchema = z.object({
  TEMPORAL_ADDRESS: temporalAddress(),
  TEMPORAL_NAMESPACE: name('TEMPORAL_NAMESPACE', DEFAULTS.TEMPORAL_NAMESPACE, 'default'),
  WSMIGRATE_TASK_QUEUE: name('WSMIGRATE_TASK_QUEUE', DEFAULTS.WSMIGRATE_TASK_QUEUE, 'wsmigrate'),
  CODER_URL: coderUrl(),
  CODER_SESSION_TOKEN: sessionToken(),
  WSMIGRATE_BLOB_DIR: z.string().optional(),
  WSMIGRATE_BLOB_URL: blobUrl(),
  WSMIGRATE_S3_ENDPOINT: s3Endpoint(),
  WSMIGRATE_S3_REGION: name('WSMIGRATE_S3_REGION', '', 'us-east-1'),
  WSMIGRATE_S3_FORCE_PATH_STYLE: bool('WSMIGRATE_S3_FORCE_PATH_STYLE'),
  WSMIGRATE_ENCRYPTION_KEY: encryptionKey(),
  WSMIGRATE_METRICS_PORT: port('WSMIGRATE_METRICS_PORT', DEFAULTS.WSMIGRATE_METRICS_PORT, 0, ', or 0 to disable metrics'),
  WSMIGRATE_METRICS_HOST: bindHost(),
  WSMIGRATE_LOG_LEVEL: logLevel(),
  WSMIGRATE_LOG_FORMAT: logFormat(),
  WSMIGRATE_APPROVERS: approvers(),
  WSMIGRATE_UI_PORT: port('WSMIGRATE_UI_PORT', DEFAULTS.WSMIGRATE_UI_PORT, 1, ''),
  WSMIGRATE_WORKER_ACTIVITY_SLOTS: slots(),
  WSMIGRATE_APPROVER: approverName(),
  SLACK_SIGNING_SECRET: secretValue('SLACK_SIGNING_SECRET', "copy it from your Slack app's Basic Information page"),
  SLACK_BOT_TOKEN: secretValue('SLACK_BOT_TOKEN', "use the Bot User OAuth Token (xoxb-…) from your Slack app's OAuth & Permissions page"),
  SLACK_CHANNEL: slackChannel(),
  SLACK_API_URL: httpUrl('SLACK_API_URL', 'https://slack.com/api/'),
  WSMIGRATE_CHATOPS_PORT: port('WSMIGRATE_CHATOPS_PORT', DEFAULTS.WSMIGRATE_CHATOPS_PORT, 1, ''),
  WSMIGRATE_SLACK_APPROVERS: slackApprovers(),
  WSMIGRATE_WEBHOOK_URL: httpUrl('WSMIGRATE_WEBHOOK_URL', 'https://hooks.example.com/wsmigrate'),
  WSMIGRATE_WEBHOOK_SECRET: secretValue('WSMIGRATE_WEBHOOK_SECRET', 'generate one with: openssl rand -hex 32'),
  WSMIGRATE_CODEC_TOKEN: codecToken(),
  TEMPORAL_TLS: z.string().optional(),
  TEMPORAL_TLS_CA: z.string().optional(),
  TEMPORAL_TLS_CERT: z.string().optional(),
  TEMPORAL_TLS_KEY: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
  TEMPORAL_API_KEY: z.string().optional(),
  WSMIGRATE_KUBECONFIG: z.string().optional(),
});

type EnvName = keyof typeof envSchema.shape;
const ENV_NAMES = Object.keys(envSchema.shape) as EnvName[];

/** Every variable wsmigrate reads, so deployment files can be checked against the real config. */
export function configVariableNames(): readonly string[] {
  return ENV_NAMES;
}

/**
 * Reads wsmigrate's settings from `env`. A variable set to the empty string counts as unset, since
 * container and CI templates often render missing values that way. Throws one ConfigError naming
 * every bad variable, so an operator fixes them in one go.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): WsmigrateConfig {
  const input: Partial<Record<EnvName, string>> = {};
  const defaulted: string[] = [];
  for (const key of ENV_NAMES) {
    const value = env[key]?.trim();
    if (value) input[key] = value;
    else defaulted.push(key);
  }
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    // Our transforms word every message; zod's own (e.g. a non-string) would only arise from a hand-built env.
    throw new ConfigError(parsed.error.issues.map((issue) => (issue.code === 'custom' ? issue.message : `${String(issue.path[0])}: ${issue.message}`)));
  }
  const v = parsed.data;
  const tls = temporalTlsFrom(v, cwd);
  if (tls.problems.length > 0) throw new ConfigError(tls.problems);
  const blobDirGiven = v.WSMIGRATE_BLOB_DIR ?? DEFAULTS.WSMIGRATE_BLOB_DIR;
  const blobDir = isAbsolute(blobDirGiven) ? resolve(blobDirGiven) : resolve(cwd, blobDirGiven);
  const fileUrl = formatLocation({ kind: 'file', dir: blobDir });
  // With an s3:// URL the directory is simply unused (templates often render both); two different directories are a mistake.
  if (v.WSMIGRATE_BLOB_URL?.startsWith('file://') && v.WSMIGRATE_BLOB_DIR && v.WSMIGRATE_BLOB_URL !== fileUrl) {
    throw new ConfigError([
      `WSMIGRATE_BLOB_URL (${v.WSMIGRATE_BLOB_URL}) and WSMIGRATE_BLOB_DIR (${blobDir}) name different stores; set only WSMIGRATE_BLOB_URL`,
    ]);
  }
  const key = v.WSMIGRATE_ENCRYPTION_KEY;
  return {
    temporalAddress: v.TEMPORAL_ADDRESS,
    temporalNamespace: v.TEMPORAL_NAMESPACE,
    taskQueue: v.WSMIGRATE_TASK_QUEUE,
    coderUrl: v.CODER_URL,
    coderSessionToken: v.CODER_SESSION_TOKEN,
    blobDir,
    blobUrl: v.WSMIGRATE_BLOB_URL ?? fileUrl,
    s3Endpoint: v.WSMIGRATE_S3_ENDPOINT,
    s3Region: v.WSMIGRATE_S3_REGION || undefined,
    // Non-AWS servers mostly need path-style; AWS prefers virtual-hosted.
    s3ForcePathStyle: v.WSMIGRATE_S3_FORCE_PATH_STYLE ?? v.WSMIGRATE_S3_ENDPOINT !== undefined,
    encryptionKey: key ? Secret.of(key.toString('hex')) : undefined,
    encryptionKeyId: key ? encryptionKeyId(key) : undefined,
    metricsPort: v.WSMIGRATE_METRICS_PORT,
    metricsHost: v.WSMIGRATE_METRICS_HOST,
    logLevel: v.WSMIGRATE_LOG_LEVEL,
    ...(v.WSMIGRATE_LOG_FORMAT ? { logFormat: v.WSMIGRATE_LOG_FORMAT } : {}),
    approvers: v.WSMIGRATE_APPROVERS,
    uiPort: v.WSMIGRATE_UI_PORT,
    workerActivitySlots: v.WSMIGRATE_WORKER_ACTIVITY_SLOTS,
    approver: v.WSMIGRATE_APPROVER,
    slackSigningSecret: v.SLACK_SIGNING_SECRET,
    slackBotToken: v.SLACK_BOT_TOKEN,
    slackChannel: v.SLACK_CHANNEL,
    slackApiUrl: v.SLACK_API_URL,
    chatopsPort: v.WSMIGRATE_CHATOPS_PORT,
    slackApprovers: v.WSMIGRATE_SLACK_APPROVERS,
    webhookUrl: v.WSMIGRATE_WEBHOOK_URL ? Secret.of(v.WSMIGRATE_WEBHOOK_URL) : undefined,
    webhookSecret: v.WSMIGRATE_WEBHOOK_SECRET,
    codecToken: v.WSMIGRATE_CODEC_TOKEN,
    temporalTls: tls.value,
    temporalApiKey: v.TEMPORAL_API_KEY ? Secret.of(v.TEMPORAL_API_KEY) : undefined,
    ...(v.WSMIGRATE_KUBECONFIG ? { kubeconfig: isAbsolute(v.WSMIGRATE_KUBECONFIG) ? v.WSMIGRATE_KUBECONFIG : resolve(cwd, v.WSMIGRATE_KUBECONFIG) } : {}),
    defaulted: defaulted.filter((k) => k in DEFAULTS),
  };
}

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/** Reads one PEM file named by `variable`; the problem names the variable, the path and what to do. */
function readPem(variable: string, raw: string, cwd: string, what: string, problems: string[]): Buffer | undefined {
  const path = isAbsolute(raw) ? raw : resolve(cwd, raw);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    problems.push(`${variable} names ${path}, which cannot be read (${code}); set it to the path of ${what} in PEM form`);
    return undefined;
  }
  if (!PEM.test(bytes.toString('utf8'))) {
    problems.push(`${variable} names ${path}, which is not PEM (no "-----BEGIN" line); set it to the path of ${what} in PEM form`);
    return undefined;
  }
  return bytes;
}

/**
 * TLS as the `temporal` CLI reads it: TEMPORAL_TLS_CA/_CERT/_KEY are file paths; a certificate, a key,
 * a CA, a server name, TEMPORAL_TLS=true or an API key (Temporal Cloud) each turn TLS on.
 */
function temporalTlsFrom(
  v: { TEMPORAL_TLS?: string; TEMPORAL_TLS_CA?: string; TEMPORAL_TLS_CERT?: string; TEMPORAL_TLS_KEY?: string; TEMPORAL_TLS_SERVER_NAME?: string; TEMPORAL_API_KEY?: string },
  cwd: string,
): { value?: TemporalTls; problems: string[] } {
  const problems: string[] = [];
  const flag = v.TEMPORAL_TLS?.toLowerCase();
  if (flag !== undefined && !['true', 'false', '1', '0'].includes(flag)) {
    problems.push(`TEMPORAL_TLS must be true or false (got ${shown(v.TEMPORAL_TLS ?? '')}); e.g. TEMPORAL_TLS=true to use TLS with the system's CA roots`);
  }
  if (v.TEMPORAL_TLS_CERT && !v.TEMPORAL_TLS_KEY) problems.push('TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not: mTLS needs both; set TEMPORAL_TLS_KEY to the path of the client key (PEM)');
  if (v.TEMPORAL_TLS_KEY && !v.TEMPORAL_TLS_CERT) problems.push('TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not: mTLS needs both; set TEMPORAL_TLS_CERT to the path of the client certificate (PEM)');
  if (v.TEMPORAL_TLS_SERVER_NAME && /\s|\//.test(v.TEMPORAL_TLS_SERVER_NAME)) {
    problems.push(`TEMPORAL_TLS_SERVER_NAME must be a host name (got ${shown(v.TEMPORAL_TLS_SERVER_NAME)}); e.g. TEMPORAL_TLS_SERVER_NAME=temporal.example.com`);
  }
  if (v.TEMPORAL_API_KEY && /\s/.test(v.TEMPORAL_API_KEY)) problems.push('TEMPORAL_API_KEY must not contain spaces or newlines; copy the key from Temporal Cloud again');
  const caPem = v.TEMPORAL_TLS_CA ? readPem('TEMPORAL_TLS_CA', v.TEMPORAL_TLS_CA, cwd, "the CA certificate that signed the Temporal frontend's certificate", problems) : undefined;
  const clientCertPem = v.TEMPORAL_TLS_CERT ? readPem('TEMPORAL_TLS_CERT', v.TEMPORAL_TLS_CERT, cwd, 'the client certificate', problems) : undefined;
  const keyPem = v.TEMPORAL_TLS_KEY ? readPem('TEMPORAL_TLS_KEY', v.TEMPORAL_TLS_KEY, cwd, 'the client private key', problems) : undefined;
  if (problems.length > 0) return { problems };
  const on = flag === 'true' || flag === '1' || Boolean(caPem || clientCertPem || v.TEMPORAL_TLS_SERVER_NAME || v.TEMPORAL_API_KEY);
  if (!on || flag === 'false' || flag === '0') {
    if ((flag === 'false' || flag === '0') && (caPem || clientCertPem || v.TEMPORAL_API_KEY)) {
      return { problems: ['TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA/_CERT or TEMPORAL_API_KEY, which need TLS; unset TEMPORAL_TLS or the others'] };
    }
    return { problems };
  }
  return {
    problems,
    value: {
      caPem,
      clientCertPem,
      clientKeyPem: keyPem ? Secret.of(keyPem.toString('utf8')) : undefined,
      serverName: v.TEMPORAL_TLS_SERVER_NAME,
      paths: { ca: v.TEMPORAL_TLS_CA, cert: v.TEMPORAL_TLS_CERT, key: v.TEMPORAL_TLS_KEY },
    },
  };
}

/** The key for the blob store and the payload codec, or undefined when encryption is off. */
export function encryptionKeyBytes(cfg: WsmigrateConfig): Buffer | undefined {
  return cfg.encryptionKey ? Buffer.from(cfg.encryptionKey.reveal(), 'hex') : undefined;
}

/** What `openBlobStore` needs: the store, the S3 settings and the key. */
export function blobStoreSettings(cfg: WsmigrateConfig): {
  url: string;
  s3Endpoint?: string;
  s3Region?: string;
  s3ForcePathStyle: boolean;
  encryptionKey?: Buffer;
} {
  return { url: cfg.blobUrl, s3Endpoint: cfg.s3Endpoint, s3Region: cfg.s3Region, s3ForcePathStyle: cfg.s3ForcePathStyle, encryptionKey: encryptionKeyBytes(cfg) };
}

/** For commands that talk to Coder: the URL and token, or a ConfigError naming what is missing. */
export function requireCoder(cfg: WsmigrateConfig): CoderConnection {
  const problems: string[] = [];
  if (!cfg.coderUrl) {
    problems.push('CODER_URL is not set; this command talks to Coder. Set it to your deployment, e.g. CODER_URL=https://coder.example.com');
  }
  if (!cfg.coderSessionToken) {
    problems.push(
      'CODER_SESSION_TOKEN is not set; this command talks to Coder. Create a token for a template admin with: coder tokens create, then export CODER_SESSION_TOKEN=<token>',
    );
  }
  if (problems.length > 0 || !cfg.coderUrl || !cfg.coderSessionToken) throw new ConfigError(problems);
  return { url: cfg.coderUrl, sessionToken: cfg.coderSessionToken };
}

/** One line per setting, secrets redacted, for `wsmigrate config` and the worker's startup log. */
export function describeConfig(cfg: WsmigrateConfig): string {
  const isDefault = (key: string) => (cfg.defaulted.includes(key) ? ' (default)' : '');
  const rows: [string, string][] = [
    ['TEMPORAL_ADDRESS', `${cfg.temporalAddress}${isDefault('TEMPORAL_ADDRESS')}`],
    ['TEMPORAL_NAMESPACE', `${cfg.temporalNamespace}${isDefault('TEMPORAL_NAMESPACE')}`],
    ['WSMIGRATE_TASK_QUEUE', `${cfg.taskQueue}${isDefault('WSMIGRATE_TASK_QUEUE')}`],
    ['CODER_URL', cfg.coderUrl ?? '(not set)'],
    ['CODER_SESSION_TOKEN', cfg.coderSessionToken ? `${cfg.coderSessionToken} (set)` : '(not set)'],
    ['WSMIGRATE_BLOB_DIR', `${cfg.blobDir}${isDefault('WSMIGRATE_BLOB_DIR')}`],
    [
      'WSMIGRATE_BLOB_URL',
      cfg.blobUrl.startsWith('s3://') ? cfg.blobUrl : `${cfg.blobUrl} (this machine's disk only: use s3:// with more than one worker)`,
    ],
    ...(cfg.blobUrl.startsWith('s3://')
      ? ([
          ['WSMIGRATE_S3_ENDPOINT', cfg.s3Endpoint ?? '(not set: AWS S3)'],
          ['WSMIGRATE_S3_REGION', cfg.s3Region ?? '(not set: from the AWS environment, else us-east-1)'],
          ['WSMIGRATE_S3_FORCE_PATH_STYLE', String(cfg.s3ForcePathStyle)],
        ] as [string, string][])
      : []),
    [
      'WSMIGRATE_ENCRYPTION_KEY',
      cfg.encryptionKey
        ? `${cfg.encryptionKey} (key id ${cfg.encryptionKeyId})`
        : '(not set: state backups and Temporal payloads are stored unencrypted)',
    ],
    [
      'WSMIGRATE_METRICS_PORT',
      cfg.metricsPort === 0 ? '0 (metrics disabled)' : `${cfg.metricsPort}${isDefault('WSMIGRATE_METRICS_PORT')}`,
    ],
    ['WSMIGRATE_METRICS_HOST', `${cfg.metricsHost}${isDefault('WSMIGRATE_METRICS_HOST')}`],
    ['WSMIGRATE_LOG_LEVEL', `${cfg.logLevel}${isDefault('WSMIGRATE_LOG_LEVEL')}`],
    ['WSMIGRATE_LOG_FORMAT', cfg.logFormat ?? '(not set: pretty on a terminal, JSON lines otherwise)'],
    ['WSMIGRATE_APPROVERS', cfg.approvers.length > 0 ? cfg.approvers.join(', ') : '(none)'],
    ['WSMIGRATE_UI_PORT', `${cfg.uiPort}${isDefault('WSMIGRATE_UI_PORT')}`],
    ['WSMIGRATE_WORKER_ACTIVITY_SLOTS', `${cfg.workerActivitySlots}${isDefault('WSMIGRATE_WORKER_ACTIVITY_SLOTS')}`],
    ['WSMIGRATE_KUBECONFIG', cfg.kubeconfig ?? '(not set: no import strategy; DIFFERENT pairs are refused)'],
    ['WSMIGRATE_APPROVER', cfg.approver ?? '(not set)'],
    ['SLACK_SIGNING_SECRET', cfg.slackSigningSecret ? `${cfg.slackSigningSecret} (set)` : '(not set)'],
    ['SLACK_BOT_TOKEN', cfg.slackBotToken ? `${cfg.slackBotToken} (set)` : '(not set)'],
    ['SLACK_CHANNEL', cfg.slackChannel ?? '(not set: no Slack notifications)'],
    ['SLACK_API_URL', cfg.slackApiUrl ?? '(not set: https://slack.com/api/)'],
    ['WSMIGRATE_CHATOPS_PORT', `${cfg.chatopsPort}${isDefault('WSMIGRATE_CHATOPS_PORT')}`],
    ['WSMIGRATE_SLACK_APPROVERS', Object.keys(cfg.slackApprovers).length > 0 ? Object.entries(cfg.slackApprovers).map(([id, n]) => `${id}=${n}`).join(', ') : '(none)'],
    ['WSMIGRATE_WEBHOOK_URL', cfg.webhookUrl ? `${new URL(cfg.webhookUrl.reveal()).origin}/${cfg.webhookUrl}` : '(not set)'],
    ['WSMIGRATE_WEBHOOK_SECRET', cfg.webhookSecret ? `${cfg.webhookSecret} (set)` : '(not set)'],
    [
      'TEMPORAL_TLS',
      cfg.temporalTls
        ? `on${cfg.temporalTls.paths.ca ? ` (CA ${cfg.temporalTls.paths.ca})` : " (system CA roots)"}${cfg.temporalTls.paths.cert ? `, client certificate ${cfg.temporalTls.paths.cert}` : ''}${cfg.temporalTls.serverName ? `, server name ${cfg.temporalTls.serverName}` : ''}`
        : 'off (plain TCP, as the local dev server expects)',
    ],
    ['TEMPORAL_API_KEY', cfg.temporalApiKey ? `${cfg.temporalApiKey} (set)` : '(not set)'],
    ['WSMIGRATE_CODEC_TOKEN', cfg.codecToken ? `${cfg.codecToken} (set)` : '(not set: the codec server asks for no token)'],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}
