import { randomBytes } from 'node:crypto';
import { processLogger } from '../../src/cli/process-logger';
import { loadConfig } from '../../src/config/env';

/**
 * The loggers of the three long-running processes, built as their commands build them
 * (src/cli/commands/worker.ts, codec-server.ts, chatops.ts): each is handed a line carrying every
 * secret it knows, in each form it could take, and writes none of them.
 */
describe('the process loggers scrub the secrets they are given to log', () => {
  const key = randomBytes(32);
  const env = {
    CODER_URL: 'https://coder.example.com',
    CODER_SESSION_TOKEN: 'AbCdEf1234-s3cr3tT0kenValue0123456789',
    WSMIGRATE_ENCRYPTION_KEY: key.toString('hex'),
    WSMIGRATE_CODEC_TOKEN: 'codec-token-0123456789abcdef',
    SLACK_SIGNING_SECRET: 'slack-signing-secret-0123456789',
    SLACK_BOT_TOKEN: 'xoxb-1234-5678-bot-token-value',
    WSMIGRATE_LOG_FORMAT: 'json',
  };
  const cfg = loadConfig(env);
  const forms = [
    env.CODER_SESSION_TOKEN,
    's3cr3tT0kenValue0123456789',
    key.toString('hex'),
    key.toString('base64'),
    key.toString('base64url'),
  ];
  let written: string[];
  beforeEach(() => {
    written = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(chunk.toString());
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  it.each<[string, string[]]>([
    ['worker', []],
    ['codec-server', [env.WSMIGRATE_CODEC_TOKEN]],
    ['chatops', [env.SLACK_SIGNING_SECRET, env.SLACK_BOT_TOKEN]],
  ])('%s', (component, extra) => {
    const logger = processLogger(cfg, component, extra);
    const secrets = [...forms, ...extra];
    logger.error({ err: new Error(`Coder said ${secrets.join(' ')}`), detail: { url: `https://x/?t=${secrets[0]}` } }, `failed with ${secrets.join(', ')}`);
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'error', component, msg: expect.stringMatching(/^failed with \[redacted\]/) });
    for (const s of secrets) expect(written[0]).not.toContain(s);
  });
});
