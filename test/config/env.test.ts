import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { encryptionKeyId } from '../../src/config/encryption-key';
import { describeConfig } from '../../src/config/describe-config';
import {
  ConfigError,
  encryptionKeyBytes,
  loadConfig,
  requireCoder,
  secretVariableNames,
  type WsmigrateConfig,
} from '../../src/config/env';

const TOKEN = 'k3yId01-SuperSecretSessionTokenValue42';
const KEY = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');
const CWD = '/srv/wsmigrate';

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env, CWD);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected loadConfig to reject ${inspect(Object.keys(env))}`);
}

describe('blob store settings', () => {
  it('defaults to a file store over WSMIGRATE_BLOB_DIR', () => {
    const cfg = loadConfig({ WSMIGRATE_BLOB_DIR: '/var/lib/wsmigrate/blobs' }, CWD);
    expect(cfg).toMatchObject({ blobUrl: 'file:///var/lib/wsmigrate/blobs', s3ForcePathStyle: false });
    expect(describeConfig(cfg)).toMatch(/^WSMIGRATE_BLOB_URL\s+file:\/\/\/var\/lib\/wsmigrate\/blobs \(this machine's disk only: use s3:\/\/ with more than one worker\)$/m);
  });

  it('reads an S3 store with endpoint, region and path style (path style on by default with an endpoint)', () => {
    const cfg = loadConfig({ WSMIGRATE_BLOB_URL: 's3://wsmigrate-backups/prod/', WSMIGRATE_S3_ENDPOINT: 'http://minio.internal:9000/', WSMIGRATE_S3_REGION: 'eu-west-1' }, CWD);
    expect(cfg).toMatchObject({ blobUrl: 's3://wsmigrate-backups/prod', s3Endpoint: 'http://minio.internal:9000', s3Region: 'eu-west-1', s3ForcePathStyle: true });
    expect(loadConfig({ WSMIGRATE_BLOB_URL: 's3://b-1/x', WSMIGRATE_S3_FORCE_PATH_STYLE: 'false', WSMIGRATE_S3_ENDPOINT: 'https://s3.example' }, CWD).s3ForcePathStyle).toBe(false);
    expect(loadConfig({ WSMIGRATE_BLOB_URL: 's3://b-1' }, CWD)).toMatchObject({ blobUrl: 's3://b-1', s3ForcePathStyle: false, s3Endpoint: undefined });
    const text = describeConfig(cfg);
    expect(text).toMatch(/^WSMIGRATE_S3_ENDPOINT\s+http:\/\/minio\.internal:9000$/m);
    expect(text).toMatch(/^WSMIGRATE_S3_FORCE_PATH_STYLE\s+true$/m);
  });

  it('names each bad blob variable', () => {
    const err = configError({
      WSMIGRATE_BLOB_URL: 'gs://bucket/x',
      WSMIGRATE_S3_ENDPOINT: 'http://key:secret@minio:9000',
      WSMIGRATE_S3_FORCE_PATH_STYLE: 'maybe',
    });
    expect(err.problems).toEqual([
      expect.stringMatching(/^WSMIGRATE_BLOB_URL must be s3:\/\/bucket\/prefix or file:\/\/\/absolute\/dir/),
      expect.stringMatching(/^WSMIGRATE_S3_ENDPOINT must not contain credentials; give them through AWS_ACCESS_KEY_ID/),
      expect.stringMatching(/^WSMIGRATE_S3_FORCE_PATH_STYLE must be true or false/),
    ]);
    expect(err.message).not.toContain('secret');
    expect(configError({ WSMIGRATE_BLOB_URL: 's3://UPPER/x' }).message).toMatch(/WSMIGRATE_BLOB_URL: "UPPER" is not an S3 bucket name/);
    expect(configError({ WSMIGRATE_BLOB_URL: 'file:///other', WSMIGRATE_BLOB_DIR: '/data' }).message).toMatch(/name different stores; set only WSMIGRATE_BLOB_URL/);
    // An S3 URL wins over a directory a template rendered anyway.
    expect(loadConfig({ WSMIGRATE_BLOB_URL: 's3://bkt/x', WSMIGRATE_BLOB_DIR: '/data' }, CWD).blobUrl).toBe('s3://bkt/x');
  });
});

describe('loadConfig defaults', () => {
  it('runs locally with nothing set', () => {
    const cfg = loadConfig({}, CWD);
    expect(cfg).toMatchObject({
      temporalAddress: '127.0.0.1:7233',
      temporalNamespace: 'default',
      taskQueue: 'wsmigrate',
      blobDir: '/srv/wsmigrate/.wsmigrate/blobs',
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
      logLevel: 'info',
      approvers: [],
      uiPort: 8233,
    });
    expect(cfg.coderUrl).toBeUndefined();
    expect(cfg.coderSessionToken).toBeUndefined();
    expect(cfg.encryptionKey).toBeUndefined();
    expect(encryptionKeyBytes(cfg)).toBeUndefined();
  });

  it('treats empty and blank variables as unset, as rendered by container templates', () => {
    const cfg = loadConfig({ TEMPORAL_ADDRESS: '', WSMIGRATE_METRICS_PORT: '  ', CODER_URL: '' }, CWD);
    expect(cfg.temporalAddress).toBe('127.0.0.1:7233');
    expect(cfg.metricsPort).toBe(9464);
    expect(cfg.coderUrl).toBeUndefined();
  });

  it('reads every variable when set', () => {
    const cfg = loadConfig(
      {
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_NAMESPACE: 'platform',
        WSMIGRATE_TASK_QUEUE: 'wsmigrate-prod',
        CODER_URL: 'https://coder.example.com',
        CODER_SESSION_TOKEN: TOKEN,
        WSMIGRATE_BLOB_DIR: 'backups/../blobs',
        WSMIGRATE_ENCRYPTION_KEY: KEY.toString('hex'),
        WSMIGRATE_METRICS_PORT: '0',
        WSMIGRATE_METRICS_HOST: '0.0.0.0',
        WSMIGRATE_LOG_LEVEL: 'DEBUG',
        WSMIGRATE_LOG_FORMAT: 'JSON',
        WSMIGRATE_APPROVERS: ' alice, bob,,alice ',
        WSMIGRATE_UI_PORT: '18233',
        WSMIGRATE_CHATOPS_PORT: '3100',
        WSMIGRATE_WORKER_ACTIVITY_SLOTS: '64',
        WSMIGRATE_LOCK_KEEPER_INTERVAL: '2m',
      },
      CWD,
    );
    expect(cfg).toMatchObject({
      temporalAddress: 'temporal.internal:7233',
      temporalNamespace: 'platform',
      taskQueue: 'wsmigrate-prod',
      coderUrl: 'https://coder.example.com/',
      blobDir: '/srv/wsmigrate/blobs',
      metricsPort: 0,
      metricsHost: '0.0.0.0',
      logLevel: 'debug',
      logFormat: 'json',
      approvers: ['alice', 'bob'],
      uiPort: 18233,
      workerActivitySlots: 64,
      lockKeeperIntervalSeconds: 120,
      defaulted: [],
    });
    expect(cfg.coderSessionToken?.reveal()).toBe(TOKEN);
    expect(encryptionKeyBytes(cfg)).toEqual(KEY);
    expect(cfg.encryptionKeyId).toBe(encryptionKeyId(KEY));
  });

  it('keeps an absolute blob dir as given', () => {
    expect(loadConfig({ WSMIGRATE_BLOB_DIR: '/var/lib/wsmigrate/blobs/' }, CWD).blobDir).toBe('/var/lib/wsmigrate/blobs');
  });

  it('accepts the encryption key as hex or base64 (standard or url-safe), giving the same bytes', () => {
    const key = randomBytes(32);
    for (const given of [key.toString('hex'), key.toString('hex').toUpperCase(), key.toString('base64'), key.toString('base64url')]) {
      expect(encryptionKeyBytes(loadConfig({ WSMIGRATE_ENCRYPTION_KEY: given }, CWD))).toEqual(key);
    }
  });

  it('accepts an IPv6 Temporal address', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: '[::1]:7233' }, CWD).temporalAddress).toBe('[::1]:7233');
  });
});

describe('loadConfig rejects each bad variable by name, with what is expected and an example', () => {
  const cases: [string, string, RegExp][] = [
    ['TEMPORAL_ADDRESS', 'localhost', /TEMPORAL_ADDRESS must be host:port .*got "localhost".*TEMPORAL_ADDRESS=127\.0\.0\.1:7233/],
    ['TEMPORAL_ADDRESS', 'localhost:99999', /TEMPORAL_ADDRESS must be host:port/],
    ['TEMPORAL_NAMESPACE', 'my namespace', /TEMPORAL_NAMESPACE must be a single word .*TEMPORAL_NAMESPACE=default/],
    ['WSMIGRATE_TASK_QUEUE', 'a b', /WSMIGRATE_TASK_QUEUE must be a single word .*WSMIGRATE_TASK_QUEUE=wsmigrate/],
    ['CODER_URL', 'coder.example.com', /CODER_URL must .*http.*CODER_URL=https:\/\/coder\.example\.com/],
    ['CODER_URL', 'ftp://coder.example.com', /CODER_URL must use http:\/\/ or https:\/\//],
    ['CODER_URL', 'not a url', /CODER_URL must be an absolute http\(s\) URL/],
    ['CODER_SESSION_TOKEN', 'two words', /CODER_SESSION_TOKEN must be a Coder API token .*coder tokens create/],
    ['WSMIGRATE_ENCRYPTION_KEY', randomBytes(12).toString('hex'), /WSMIGRATE_ENCRYPTION_KEY must be 32 bytes as 64 hex characters or base64 \(got 12 bytes\); generate one with: openssl rand -hex 32/],
    ['WSMIGRATE_ENCRYPTION_KEY', randomBytes(16).toString('base64'), /\(got 16 bytes\)/],
    ['WSMIGRATE_ENCRYPTION_KEY', 'not*a*key!', /neither hex nor base64/],
    ['WSMIGRATE_METRICS_PORT', 'abc', /WSMIGRATE_METRICS_PORT must be an integer from 0 to 65535 \(got "abc"\); e\.g\. WSMIGRATE_METRICS_PORT=9464, or 0 to disable/],
    ['WSMIGRATE_METRICS_PORT', '70000', /WSMIGRATE_METRICS_PORT must be an integer from 0 to 65535 \(got "70000"\)/],
    ['WSMIGRATE_METRICS_PORT', '-1', /WSMIGRATE_METRICS_PORT must be an integer/],
    ['WSMIGRATE_METRICS_PORT', '80.5', /WSMIGRATE_METRICS_PORT must be an integer/],
    ['WSMIGRATE_LOG_LEVEL', 'verbose', /WSMIGRATE_LOG_LEVEL must be one of error, warn, info, debug \(got "verbose"\)/],
    ['WSMIGRATE_LOG_FORMAT', 'xml', /WSMIGRATE_LOG_FORMAT must be one of json, pretty \(got "xml"\); unset it/],
    ['WSMIGRATE_APPROVERS', 'alice,bob smith', /WSMIGRATE_APPROVERS must be a comma-separated list .*"bob smith".*WSMIGRATE_APPROVERS=alice,bob/],
    ['WSMIGRATE_UI_PORT', '0', /WSMIGRATE_UI_PORT must be an integer from 1 to 65535 \(got "0"\)/],
    ['WSMIGRATE_METRICS_HOST', '0.0.0.0:9464', /WSMIGRATE_METRICS_HOST must be an address to bind to, without a port \(got "0\.0\.0\.0:9464"\); e\.g\. WSMIGRATE_METRICS_HOST=0\.0\.0\.0/],
    ['WSMIGRATE_METRICS_HOST', '300.1.1.1', /WSMIGRATE_METRICS_HOST must be an address/],
    ['WSMIGRATE_CODEC_TOKEN', 'short', /WSMIGRATE_CODEC_TOKEN must be at least 16 characters .*openssl rand -hex 24/],
    ['WSMIGRATE_WORKER_ACTIVITY_SLOTS', '0', /WSMIGRATE_WORKER_ACTIVITY_SLOTS must be an integer from 1 to 2000 \(got "0"\)/],
    ['WSMIGRATE_LOCK_KEEPER_INTERVAL', 'soon', /WSMIGRATE_LOCK_KEEPER_INTERVAL must be a number of seconds from 1 to 3600 \(e\.g\. 60, 60s or 1m\), or off \(got "soon"\); e\.g\. WSMIGRATE_LOCK_KEEPER_INTERVAL=60/],
    ['WSMIGRATE_LOCK_KEEPER_INTERVAL', '2h', /WSMIGRATE_LOCK_KEEPER_INTERVAL must be a number of seconds/],
    ['WSMIGRATE_LOCK_KEEPER_INTERVAL', '61m', /from 1 to 3600/],
  ];

  it('runs the lock keeper every 60 s by default; seconds, minutes, or off', () => {
    expect(loadConfig({}, CWD).lockKeeperIntervalSeconds).toBe(60);
    expect(loadConfig({ WSMIGRATE_LOCK_KEEPER_INTERVAL: '15' }, CWD).lockKeeperIntervalSeconds).toBe(15);
    expect(loadConfig({ WSMIGRATE_LOCK_KEEPER_INTERVAL: '30s' }, CWD).lockKeeperIntervalSeconds).toBe(30);
    expect(loadConfig({ WSMIGRATE_LOCK_KEEPER_INTERVAL: '2m' }, CWD).lockKeeperIntervalSeconds).toBe(120);
    for (const off of ['0', 'off', 'OFF']) expect(loadConfig({ WSMIGRATE_LOCK_KEEPER_INTERVAL: off }, CWD).lockKeeperIntervalSeconds).toBe(0);
    expect(describeConfig(loadConfig({ WSMIGRATE_LOCK_KEEPER_INTERVAL: 'off' }, CWD))).toMatch(/^WSMIGRATE_LOCK_KEEPER_INTERVAL\s+off \(a terminated run's require_active_version stays on/m);
  });

  it('binds metrics to loopback by default and to what WSMIGRATE_METRICS_HOST says', () => {
    expect(loadConfig({}, CWD).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ WSMIGRATE_METRICS_HOST: '0.0.0.0' }, CWD).metricsHost).toBe('0.0.0.0');
    expect(loadConfig({ WSMIGRATE_METRICS_HOST: '::' }, CWD).metricsHost).toBe('::');
  });

  it.each(cases)('%s=%s', (variable, value, expected) => {
    const err = configError({ [variable]: value });
    expect(err.problems).toHaveLength(1);
    expect(err.message).toMatch(expected);
  });

  it('never echoes a credential in its error, whatever is wrong with it', () => {
    expect([...secretVariableNames()].sort()).toEqual(
      ['CODER_SESSION_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'TEMPORAL_API_KEY', 'WSMIGRATE_CODEC_TOKEN', 'WSMIGRATE_ENCRYPTION_KEY', 'WSMIGRATE_WEBHOOK_SECRET', 'WSMIGRATE_WEBHOOK_URL'].sort(),
    );
    const marker = 'Sup3rSecretMark';
    for (const variable of secretVariableNames()) {
      for (const value of [`${marker} with spaces`, marker, `ftp://${marker}`, `https://u:${marker}@x.example`]) {
        let message = '';
        try {
          loadConfig({ [variable]: value }, CWD);
        } catch (err) {
          message = (err as Error).message;
        }
        expect({ variable, value, leaked: message.includes(marker) }).toEqual({ variable, value, leaked: false });
      }
    }
  });

  it('names every bad variable in one error when several are wrong', () => {
    const err = configError({
      TEMPORAL_ADDRESS: 'nope',
      CODER_URL: 'coder',
      WSMIGRATE_ENCRYPTION_KEY: 'abcd',
      WSMIGRATE_METRICS_PORT: 'x',
      WSMIGRATE_LOG_LEVEL: 'loud',
      WSMIGRATE_UI_PORT: '65536',
      WSMIGRATE_TASK_QUEUE: 'fine',
    });
    expect(err.problems).toHaveLength(6);
    for (const variable of ['TEMPORAL_ADDRESS', 'CODER_URL', 'WSMIGRATE_ENCRYPTION_KEY', 'WSMIGRATE_METRICS_PORT', 'WSMIGRATE_LOG_LEVEL', 'WSMIGRATE_UI_PORT']) {
      expect(err.message).toContain(variable);
    }
    expect(err.message).not.toContain('WSMIGRATE_TASK_QUEUE');
    expect(err.message).toMatch(/^Invalid configuration \(6 problems\):/);
  });
});

describe('no secret in any message', () => {
  const badKeys = [
    'deadbeef'.repeat(7), // 28 bytes of hex
    Buffer.from('my-passphrase-is-not-a-key-but-long').toString('base64'),
    `${'ab'.repeat(32)}!`,
  ];

  it.each(badKeys)('a bad WSMIGRATE_ENCRYPTION_KEY is not echoed (%#)', (value) => {
    const err = configError({ WSMIGRATE_ENCRYPTION_KEY: value, CODER_SESSION_TOKEN: 'has space ' + TOKEN });
    expect(err.message).toContain('WSMIGRATE_ENCRYPTION_KEY');
    expect(err.message).toContain('CODER_SESSION_TOKEN');
    expect(err.message).not.toContain(value);
    expect(err.message).not.toContain(TOKEN);
    expect(inspect(err)).not.toContain(value);
    expect(JSON.stringify(err.problems)).not.toContain(TOKEN);
  });

  it('does not echo a CODER_URL that may hold credentials', () => {
    const err = configError({ CODER_URL: 'https://admin:hunter2@coder.example.com' });
    expect(err.message).toMatch(/CODER_URL must not contain a user name or password/);
    expect(err.message).not.toContain('hunter2');
  });

  it('describeConfig shows every setting, one per line, with secrets redacted and the key id', () => {
    const cfg = loadConfig(
      {
        CODER_URL: 'https://coder.example.com',
        CODER_SESSION_TOKEN: TOKEN,
        WSMIGRATE_ENCRYPTION_KEY: KEY.toString('base64'),
        WSMIGRATE_APPROVERS: 'alice,bob',
        WSMIGRATE_METRICS_PORT: '0',
      },
      CWD,
    );
    const text = describeConfig(cfg);
    const lines = text.split('\n');
    expect(lines).toHaveLength(30);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([
      'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'WSMIGRATE_TASK_QUEUE', 'CODER_URL', 'CODER_SESSION_TOKEN', 'WSMIGRATE_BLOB_DIR', 'WSMIGRATE_BLOB_URL',
      'WSMIGRATE_ENCRYPTION_KEY', 'WSMIGRATE_METRICS_PORT', 'WSMIGRATE_METRICS_HOST', 'WSMIGRATE_LOG_LEVEL', 'WSMIGRATE_LOG_FORMAT', 'WSMIGRATE_APPROVERS', 'WSMIGRATE_UI_PORT',
      'WSMIGRATE_WORKER_ACTIVITY_SLOTS', 'WSMIGRATE_LOCK_KEEPER_INTERVAL', 'WSMIGRATE_KUBECONFIG', 'WSMIGRATE_TEMPLATE_VARIABLES',
      'WSMIGRATE_APPROVER', 'SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN', 'SLACK_CHANNEL', 'SLACK_API_URL', 'WSMIGRATE_CHATOPS_PORT',
      'WSMIGRATE_SLACK_APPROVERS', 'WSMIGRATE_WEBHOOK_URL', 'WSMIGRATE_WEBHOOK_SECRET', 'TEMPORAL_TLS', 'TEMPORAL_API_KEY', 'WSMIGRATE_CODEC_TOKEN',
    ]);
    expect(text).toMatch(/^TEMPORAL_ADDRESS\s+127\.0\.0\.1:7233 \(default\)$/m);
    expect(text).toMatch(/^CODER_SESSION_TOKEN\s+\[redacted\] \(set\)$/m);
    expect(text).toMatch(new RegExp(`^WSMIGRATE_ENCRYPTION_KEY\\s+\\[redacted\\] \\(key id ${encryptionKeyId(KEY)}\\)$`, 'm'));
    expect(text).toMatch(/^WSMIGRATE_METRICS_PORT\s+0 \(metrics disabled\)$/m);
    expect(text).toMatch(/^WSMIGRATE_APPROVERS\s+alice, bob$/m);
    for (const leak of [TOKEN, KEY.toString('hex'), KEY.toString('base64')]) expect(text).not.toContain(leak);
  });

  it('the config object itself does not leak when logged or serialized', () => {
    const cfg = loadConfig({ CODER_SESSION_TOKEN: TOKEN, WSMIGRATE_ENCRYPTION_KEY: KEY.toString('hex') }, CWD);
    for (const text of [JSON.stringify(cfg), inspect(cfg, { depth: Infinity, showHidden: true }), `${JSON.stringify({ cfg })}`]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(KEY.toString('hex'));
    }
  });

  it('describeConfig says when encryption is off', () => {
    expect(describeConfig(loadConfig({}, CWD))).toMatch(/^WSMIGRATE_ENCRYPTION_KEY\s+\(not set: .*unencrypted\)$/m);
  });
});

describe('requireCoder', () => {
  const base = (env: NodeJS.ProcessEnv): WsmigrateConfig => loadConfig(env, CWD);

  it('returns the URL and token when both are set', () => {
    const coder = requireCoder(base({ CODER_URL: 'https://coder.example.com', CODER_SESSION_TOKEN: TOKEN }));
    expect(coder.url).toBe('https://coder.example.com/');
    expect(coder.sessionToken.reveal()).toBe(TOKEN);
  });

  it('names both missing variables and how to set them', () => {
    expect(() => requireCoder(base({}))).toThrow(ConfigError);
    try {
      requireCoder(base({}));
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toMatch(/CODER_URL is not set.*CODER_URL=https:\/\/coder\.example\.com/);
      expect(message).toMatch(/CODER_SESSION_TOKEN is not set.*coder tokens create/);
      // The role README and the preflight ask for: a Template Admin's token is refused at the first stop.
      expect(message).toMatch(/as an Owner or an Organization Admin \(not a Template Admin: that role cannot start or stop other users' workspaces\)/);
      expect(message).not.toMatch(/token for a template admin/i);
    }
  });

  it('names only the one that is missing', () => {
    expect(() => requireCoder(base({ CODER_SESSION_TOKEN: TOKEN }))).toThrow(/^Invalid configuration: CODER_URL is not set/);
    let message = '';
    try {
      requireCoder(base({ CODER_URL: 'https://coder.example.com' }));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration: CODER_SESSION_TOKEN is not set/);
    expect(message).not.toContain('CODER_URL is not set');
  });
});

describe('chat and notification settings', () => {
  const SIGNING = 'f00dfeedf00dfeedf00dfeedf00dfeed';
  const BOT = 'xoxb-1111-2222-SuperSecretBotToken';
  const HOOK = 'whsec-SuperSecretWebhookKey';

  it('reads the Slack, chatops and webhook variables, defaulting the chatops port to 3100', () => {
    expect(loadConfig({}, CWD)).toMatchObject({ chatopsPort: 3100, slackApprovers: {} });
    const cfg = loadConfig(
      {
        WSMIGRATE_APPROVER: 'alice',
        SLACK_SIGNING_SECRET: SIGNING,
        SLACK_BOT_TOKEN: BOT,
        SLACK_CHANNEL: 'C0123ABCD',
        SLACK_API_URL: 'http://127.0.0.1:9999/api/',
        WSMIGRATE_CHATOPS_PORT: '3200',
        WSMIGRATE_SLACK_APPROVERS: 'U0123ABCD=alice, W0456EFGH=bob',
        WSMIGRATE_WEBHOOK_URL: 'https://hooks.example.com/wsmigrate/T0KEN',
        WSMIGRATE_WEBHOOK_SECRET: HOOK,
      },
      CWD,
    );
    expect(cfg).toMatchObject({ approver: 'alice', slackChannel: 'C0123ABCD', slackApiUrl: 'http://127.0.0.1:9999/api/', chatopsPort: 3200, slackApprovers: { U0123ABCD: 'alice', W0456EFGH: 'bob' } });
    expect(cfg.slackSigningSecret?.reveal()).toBe(SIGNING);
    expect(cfg.slackBotToken?.reveal()).toBe(BOT);
    expect(cfg.webhookSecret?.reveal()).toBe(HOOK);
    const text = `${describeConfig(cfg)}\n${JSON.stringify(cfg)}\n${inspect(cfg, { depth: 5 })}`;
    for (const leak of [SIGNING, BOT, HOOK, 'T0KEN']) expect(text).not.toContain(leak);
    expect(describeConfig(cfg)).toMatch(/^WSMIGRATE_SLACK_APPROVERS\s+U0123ABCD=alice, W0456EFGH=bob$/m);
  });

  it('names the bad variable and shows the expected form', () => {
    expect(configError({ WSMIGRATE_SLACK_APPROVERS: 'alice' }).message).toMatch(/WSMIGRATE_SLACK_APPROVERS must be comma-separated SlackUserId=approver pairs.*U0123ABCD=alice/);
    expect(configError({ WSMIGRATE_CHATOPS_PORT: 'http' }).message).toMatch(/WSMIGRATE_CHATOPS_PORT must be an integer/);
    expect(configError({ SLACK_API_URL: 'slack' }).message).toMatch(/SLACK_API_URL must be an absolute http\(s\) URL/);
    expect(configError({ WSMIGRATE_APPROVER: 'alice,bob' }).message).toMatch(/WSMIGRATE_APPROVER must be one name/);
    const bad = configError({ SLACK_BOT_TOKEN: `${BOT} extra` }).message;
    expect(bad).toMatch(/SLACK_BOT_TOKEN must not contain spaces/);
    expect(bad).not.toContain(BOT);
  });
});

describe('values that look almost right are refused, not read loosely', () => {
  it.each([
    ['WSMIGRATE_CODEC_TOKEN', '0123456789abcde', /WSMIGRATE_CODEC_TOKEN must be at least 16 characters/],
    ['WSMIGRATE_SLACK_APPROVERS', 'alice=alice', /WSMIGRATE_SLACK_APPROVERS must be comma-separated SlackUserId=approver pairs/],
    ['WSMIGRATE_SLACK_APPROVERS', 'U0123ABCD=alice=bob', /WSMIGRATE_SLACK_APPROVERS must be comma-separated SlackUserId=approver pairs/],
    ['WSMIGRATE_S3_FORCE_PATH_STYLE', 'truefalse', /WSMIGRATE_S3_FORCE_PATH_STYLE must be true or false/],
  ])('%s=%s', (name, value, problem) => {
    expect(configError({ [name]: value }).problems).toEqual([expect.stringMatching(problem)]);
  });
});
