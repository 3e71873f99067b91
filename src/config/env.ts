import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { encryptionKeyId, KEY_BYTES } from '../adapters/crypto';
import { Secret } from './secret';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

export interface WsmigrateConfig {
  readonly temporalAddress: string;
  readonly temporalNamespace: string;
  readonly taskQueue: string;
  /** Normalized href, e.g. 'https://coder.example.com/'. */
  readonly coderUrl?: string;
  readonly coderSessionToken?: Secret;
  /** Absolute. */
  readonly blobDir: string;
  /** The 32-byte key as 64 hex characters, whatever form it was given in; see `encryptionKeyBytes`. */
  readonly encryptionKey?: Secret;
  /** Public id of the key (a hash), shown so client and worker can be checked to share one. */
  readonly encryptionKeyId?: string;
  /** 0 disables the Prometheus endpoint. */
  readonly metricsPort: number;
  readonly logLevel: LogLevel;
  readonly approvers: readonly string[];
  readonly uiPort: number;
  /** Absolute; set when the worker may run `terraform import` (the import strategy) against this cluster. */
  readonly kubeconfig?: string;
  /** Names of the variables that were unset and took their default. */
  readonly defaulted: readonly string[];
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
  WSMIGRATE_LOG_LEVEL: 'info' as LogLevel,
  WSMIGRATE_UI_PORT: 8233,
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

const envSchema = z.object({
  TEMPORAL_ADDRESS: temporalAddress(),
  TEMPORAL_NAMESPACE: name('TEMPORAL_NAMESPACE', DEFAULTS.TEMPORAL_NAMESPACE, 'default'),
  WSMIGRATE_TASK_QUEUE: name('WSMIGRATE_TASK_QUEUE', DEFAULTS.WSMIGRATE_TASK_QUEUE, 'wsmigrate'),
  CODER_URL: coderUrl(),
  CODER_SESSION_TOKEN: sessionToken(),
  WSMIGRATE_BLOB_DIR: z.string().optional(),
  WSMIGRATE_ENCRYPTION_KEY: encryptionKey(),
  WSMIGRATE_METRICS_PORT: port('WSMIGRATE_METRICS_PORT', DEFAULTS.WSMIGRATE_METRICS_PORT, 0, ', or 0 to disable metrics'),
  WSMIGRATE_LOG_LEVEL: logLevel(),
  WSMIGRATE_APPROVERS: approvers(),
  WSMIGRATE_UI_PORT: port('WSMIGRATE_UI_PORT', DEFAULTS.WSMIGRATE_UI_PORT, 1, ''),
  WSMIGRATE_KUBECONFIG: z.string().optional(),
});

type EnvName = keyof typeof envSchema.shape;
const ENV_NAMES = Object.keys(envSchema.shape) as EnvName[];

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
  const blobDir = v.WSMIGRATE_BLOB_DIR ?? DEFAULTS.WSMIGRATE_BLOB_DIR;
  const key = v.WSMIGRATE_ENCRYPTION_KEY;
  return {
    temporalAddress: v.TEMPORAL_ADDRESS,
    temporalNamespace: v.TEMPORAL_NAMESPACE,
    taskQueue: v.WSMIGRATE_TASK_QUEUE,
    coderUrl: v.CODER_URL,
    coderSessionToken: v.CODER_SESSION_TOKEN,
    blobDir: isAbsolute(blobDir) ? resolve(blobDir) : resolve(cwd, blobDir),
    encryptionKey: key ? Secret.of(key.toString('hex')) : undefined,
    encryptionKeyId: key ? encryptionKeyId(key) : undefined,
    metricsPort: v.WSMIGRATE_METRICS_PORT,
    logLevel: v.WSMIGRATE_LOG_LEVEL,
    approvers: v.WSMIGRATE_APPROVERS,
    uiPort: v.WSMIGRATE_UI_PORT,
    ...(v.WSMIGRATE_KUBECONFIG ? { kubeconfig: isAbsolute(v.WSMIGRATE_KUBECONFIG) ? v.WSMIGRATE_KUBECONFIG : resolve(cwd, v.WSMIGRATE_KUBECONFIG) } : {}),
    defaulted: defaulted.filter((k) => k in DEFAULTS),
  };
}

/** The key for the blob store and the payload codec, or undefined when encryption is off. */
export function encryptionKeyBytes(cfg: WsmigrateConfig): Buffer | undefined {
  return cfg.encryptionKey ? Buffer.from(cfg.encryptionKey.reveal(), 'hex') : undefined;
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
      'WSMIGRATE_ENCRYPTION_KEY',
      cfg.encryptionKey
        ? `${cfg.encryptionKey} (key id ${cfg.encryptionKeyId})`
        : '(not set: state backups and Temporal payloads are stored unencrypted)',
    ],
    [
      'WSMIGRATE_METRICS_PORT',
      cfg.metricsPort === 0 ? '0 (metrics disabled)' : `${cfg.metricsPort}${isDefault('WSMIGRATE_METRICS_PORT')}`,
    ],
    ['WSMIGRATE_LOG_LEVEL', `${cfg.logLevel}${isDefault('WSMIGRATE_LOG_LEVEL')}`],
    ['WSMIGRATE_APPROVERS', cfg.approvers.length > 0 ? cfg.approvers.join(', ') : '(none)'],
    ['WSMIGRATE_UI_PORT', `${cfg.uiPort}${isDefault('WSMIGRATE_UI_PORT')}`],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}
