import { isAbsolute, resolve } from 'node:path';
import { formatLocation, parseLocation } from '../domain/blob-ref';
import { encryptionKeyId } from './encryption-key';
import * as parse from './env-parsers';
import { EnvProblem, type EnvParser } from './env-parsers';
import { Secret } from './secret';
import { temporalTlsFrom, type TemporalTls } from './temporal-tls';

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
  /**
   * Seconds between the worker's lock keeper's sweeps (0: off), which give back require_active_version
   * left on by a run that was terminated or timed out.
   */
  readonly lockKeeperIntervalSeconds: number;
  /** Absolute; set when the worker may run `terraform import` (the import strategy) against this cluster. */
  readonly kubeconfig?: string;
  /** Absolute; a JSON file of values for templates' sensitive variables, which Coder redacts (read by the worker at each push). */
  readonly templateVariablesFile?: string;
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
  WSMIGRATE_METRICS_HOST: '127.0.0.1',
  WSMIGRATE_LOG_LEVEL: 'info' as LogLevel,
  WSMIGRATE_UI_PORT: 8233,
  // A fleet runs at most 200 workspaces at once, each awaiting at most one build.
  WSMIGRATE_WORKER_ACTIVITY_SLOTS: 200,
  WSMIGRATE_CHATOPS_PORT: 3100,
  WSMIGRATE_LOCK_KEEPER_INTERVAL: 60,
} as const;

interface Variable<T> {
  readonly parse: EnvParser<T>;
  readonly fallback: T;
  /** Its value is a credential: never echoed, not even by its parser's message (a test holds every parser to it). */
  readonly secret: boolean;
}

function optional<T>(parser: EnvParser<T>, secret = false): Variable<T | undefined> {
  return { parse: parser, fallback: undefined, secret };
}

function withDefault<T>(parser: EnvParser<T>, fallback: T): Variable<T> {
  return { parse: parser, fallback, secret: false };
}

const levelAdvice = () => 'e.g. WSMIGRATE_LOG_LEVEL=debug';
const formatAdvice = () => 'unset it to get pretty text on a terminal and JSON lines elsewhere';
const blobUrl: EnvParser<string> = parse.fromErrors((raw, variable) => formatLocation(parseLocation(raw, variable)));

/** Every variable wsmigrate reads: its parser, its default, whether it is a secret. README's configuration table lists the same. */
const VARIABLES = {
  TEMPORAL_ADDRESS: withDefault(parse.hostPort, DEFAULTS.TEMPORAL_ADDRESS),
  TEMPORAL_NAMESPACE: withDefault(parse.word('default'), DEFAULTS.TEMPORAL_NAMESPACE),
  WSMIGRATE_TASK_QUEUE: withDefault(parse.word('wsmigrate'), DEFAULTS.WSMIGRATE_TASK_QUEUE),
  CODER_URL: optional(parse.httpUrl({ of: 'the Coder deployment', example: 'https://coder.example.com', credentials: 'a user name or password; put the token in CODER_SESSION_TOKEN; e.g. CODER_URL=https://coder.example.com' })),
  CODER_SESSION_TOKEN: optional(parse.secret('create one with: coder tokens create', 'a Coder API token'), true),
  WSMIGRATE_BLOB_DIR: optional(parse.text),
  WSMIGRATE_BLOB_URL: optional(blobUrl),
  WSMIGRATE_S3_ENDPOINT: optional(
    parse.httpUrl({
      of: 'the S3-compatible server',
      example: 'https://minio.internal:9000 (unset for AWS S3)',
      credentials: 'credentials; give them through AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, or an IAM role)',
    }),
  ),
  WSMIGRATE_S3_REGION: optional(parse.word('us-east-1')),
  WSMIGRATE_S3_FORCE_PATH_STYLE: optional(parse.bool),
  WSMIGRATE_ENCRYPTION_KEY: optional(parse.encryptionKey, true),
  WSMIGRATE_METRICS_PORT: withDefault(parse.port(0, DEFAULTS.WSMIGRATE_METRICS_PORT, ', or 0 to disable metrics'), DEFAULTS.WSMIGRATE_METRICS_PORT),
  WSMIGRATE_METRICS_HOST: withDefault(parse.bindHost, DEFAULTS.WSMIGRATE_METRICS_HOST),
  WSMIGRATE_LOG_LEVEL: withDefault(parse.oneOf(LOG_LEVELS, levelAdvice), DEFAULTS.WSMIGRATE_LOG_LEVEL),
  WSMIGRATE_LOG_FORMAT: optional(parse.oneOf(LOG_FORMATS, formatAdvice)),
  WSMIGRATE_APPROVERS: withDefault(parse.nameList, [] as string[]),
  WSMIGRATE_UI_PORT: withDefault(parse.port(1, DEFAULTS.WSMIGRATE_UI_PORT), DEFAULTS.WSMIGRATE_UI_PORT),
  WSMIGRATE_WORKER_ACTIVITY_SLOTS: withDefault(
    parse.integer(1, 2000, 'set it at least to the highest fleet concurrency, e.g. WSMIGRATE_WORKER_ACTIVITY_SLOTS=200'),
    DEFAULTS.WSMIGRATE_WORKER_ACTIVITY_SLOTS,
  ),
  WSMIGRATE_LOCK_KEEPER_INTERVAL: withDefault(
    parse.interval(3600, 'e.g. WSMIGRATE_LOCK_KEEPER_INTERVAL=60; off leaves a terminated run\'s require_active_version on until someone switches it off'),
    DEFAULTS.WSMIGRATE_LOCK_KEEPER_INTERVAL as number,
  ),
  WSMIGRATE_APPROVER: optional(parse.singleName),
  SLACK_SIGNING_SECRET: optional(parse.secret("copy it from your Slack app's Basic Information page"), true),
  SLACK_BOT_TOKEN: optional(parse.secret("use the Bot User OAuth Token (xoxb-…) from your Slack app's OAuth & Permissions page"), true),
  SLACK_CHANNEL: optional(parse.word('C0123ABCD', 'a channel id or #name')),
  SLACK_API_URL: optional(parse.httpUrl({ example: 'https://slack.com/api/' })),
  WSMIGRATE_CHATOPS_PORT: withDefault(parse.port(1, DEFAULTS.WSMIGRATE_CHATOPS_PORT), DEFAULTS.WSMIGRATE_CHATOPS_PORT),
  WSMIGRATE_SLACK_APPROVERS: withDefault(parse.slackApprovers, {} as Record<string, string>),
  WSMIGRATE_WEBHOOK_URL: optional(parse.httpUrl({ example: 'https://hooks.example.com/wsmigrate' }), true),
  WSMIGRATE_WEBHOOK_SECRET: optional(parse.secret('generate one with: openssl rand -hex 32'), true),
  WSMIGRATE_CODEC_TOKEN: optional(parse.codecToken, true),
  TEMPORAL_TLS: optional(parse.text),
  TEMPORAL_TLS_CA: optional(parse.text),
  TEMPORAL_TLS_CERT: optional(parse.text),
  TEMPORAL_TLS_KEY: optional(parse.text),
  TEMPORAL_TLS_SERVER_NAME: optional(parse.text),
  TEMPORAL_API_KEY: optional(parse.text, true),
  WSMIGRATE_KUBECONFIG: optional(parse.text),
  WSMIGRATE_TEMPLATE_VARIABLES: optional(parse.text),
};

type EnvName = keyof typeof VARIABLES;
type EnvValues = { [K in EnvName]: (typeof VARIABLES)[K] extends Variable<infer T> ? T : never };
const ENV_NAMES = Object.keys(VARIABLES) as EnvName[];

/** Reads every variable of the table, collecting one problem per bad variable. */
function readVariables(env: NodeJS.ProcessEnv): { values: EnvValues; defaulted: string[]; problems: string[] } {
  const values: Record<string, unknown> = {};
  const defaulted: string[] = [];
  const problems: string[] = [];
  for (const name of ENV_NAMES) {
    const variable: Variable<unknown> = VARIABLES[name];
    const raw = env[name]?.trim();
    if (!raw) {
      values[name] = variable.fallback;
      defaulted.push(name);
      continue;
    }
    try {
      values[name] = variable.parse(raw, name);
    } catch (err) {
      if (!(err instanceof EnvProblem)) throw err;
      problems.push(err.message);
    }
  }
  return { values: values as EnvValues, defaulted, problems };
}

/** The variables that hold credentials. */
export function secretVariableNames(): readonly string[] {
  return ENV_NAMES.filter((name) => VARIABLES[name].secret);
}

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
  const { values: v, defaulted, problems } = readVariables(env);
  if (problems.length > 0) throw new ConfigError(problems);
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
    coderUrl: v.CODER_URL?.href,
    coderSessionToken: v.CODER_SESSION_TOKEN,
    blobDir,
    blobUrl: v.WSMIGRATE_BLOB_URL ?? fileUrl,
    s3Endpoint: v.WSMIGRATE_S3_ENDPOINT?.href.replace(/\/+$/, ''),
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
    lockKeeperIntervalSeconds: v.WSMIGRATE_LOCK_KEEPER_INTERVAL,
    approver: v.WSMIGRATE_APPROVER,
    slackSigningSecret: v.SLACK_SIGNING_SECRET,
    slackBotToken: v.SLACK_BOT_TOKEN,
    slackChannel: v.SLACK_CHANNEL,
    slackApiUrl: v.SLACK_API_URL?.href,
    chatopsPort: v.WSMIGRATE_CHATOPS_PORT,
    slackApprovers: v.WSMIGRATE_SLACK_APPROVERS,
    webhookUrl: v.WSMIGRATE_WEBHOOK_URL ? Secret.of(v.WSMIGRATE_WEBHOOK_URL.href) : undefined,
    webhookSecret: v.WSMIGRATE_WEBHOOK_SECRET,
    codecToken: v.WSMIGRATE_CODEC_TOKEN,
    temporalTls: tls.value,
    temporalApiKey: v.TEMPORAL_API_KEY ? Secret.of(v.TEMPORAL_API_KEY) : undefined,
    ...(v.WSMIGRATE_KUBECONFIG ? { kubeconfig: isAbsolute(v.WSMIGRATE_KUBECONFIG) ? v.WSMIGRATE_KUBECONFIG : resolve(cwd, v.WSMIGRATE_KUBECONFIG) } : {}),
    ...(v.WSMIGRATE_TEMPLATE_VARIABLES ? { templateVariablesFile: isAbsolute(v.WSMIGRATE_TEMPLATE_VARIABLES) ? v.WSMIGRATE_TEMPLATE_VARIABLES : resolve(cwd, v.WSMIGRATE_TEMPLATE_VARIABLES) } : {}),
    defaulted: defaulted.filter((k) => k in DEFAULTS),
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
      "CODER_SESSION_TOKEN is not set; this command talks to Coder. Log in to Coder as an Owner or an Organization Admin (not a Template Admin: that role cannot start or stop other users' workspaces), run: coder tokens create, then export CODER_SESSION_TOKEN=<token>",
    );
  }
  if (problems.length > 0 || !cfg.coderUrl || !cfg.coderSessionToken) throw new ConfigError(problems);
  return { url: cfg.coderUrl, sessionToken: cfg.coderSessionToken };
}

