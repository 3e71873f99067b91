import type { WsmigrateConfig } from './env';

/** One line per setting, secrets redacted, for `wsmigrate config` and the worker's startup log. */
export function describeConfig(cfg: WsmigrateConfig, outside: readonly [string, string][] = []): string {
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
    [
      'WSMIGRATE_LOCK_KEEPER_INTERVAL',
      cfg.lockKeeperIntervalSeconds === 0
        ? "off (a terminated run's require_active_version stays on until someone switches it off)"
        : `${cfg.lockKeeperIntervalSeconds} s${isDefault('WSMIGRATE_LOCK_KEEPER_INTERVAL')}`,
    ],
    ['WSMIGRATE_KUBECONFIG', cfg.kubeconfig ?? '(not set: no import strategy; DIFFERENT pairs are refused)'],
    ['WSMIGRATE_TEMPLATE_VARIABLES', cfg.templateVariablesFile ?? "(not set: a template with a sensitive variable is refused before its push)"],
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
    ...outside,
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}

/**
 * What `wsmigrate config` also shows of the variables read outside the loader: the organization
 * `--org` means when it is not given (as the Coder CLI reads it) and where the tools are.
 */
export function settingsReadOutside(env: NodeJS.ProcessEnv, toolsDir: string): [string, string][] {
  return [
    ['CODER_ORGANIZATION', env.CODER_ORGANIZATION ? `${env.CODER_ORGANIZATION} (what --org means when not given)` : 'coder (default: what --org means when not given)'],
    ['WSMIGRATE_TOOLS_DIR', `${toolsDir}${env.WSMIGRATE_TOOLS_DIR ? '' : ' (default)'}`],
    ['WSMIGRATE_TEMPORAL_BIN', env.WSMIGRATE_TEMPORAL_BIN ?? '(not set: the one in WSMIGRATE_TOOLS_DIR)'],
    ['WSMIGRATE_TERRAFORM_BIN', env.WSMIGRATE_TERRAFORM_BIN ?? '(not set: the one in WSMIGRATE_TOOLS_DIR)'],
  ];
}
