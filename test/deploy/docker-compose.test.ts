import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configVariableNames } from '../../src/config/env';

// No Docker engine runs here, so the stack is checked by reading it: a broken service definition
// would otherwise only be found by a user on their first `docker compose up`.
const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    { image?: string; build?: string; command?: string[]; profiles?: string[]; environment?: Record<string, string>; ports?: string[]; depends_on?: unknown; volumes?: string[]; healthcheck?: { test: string[] } }
  >;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL, the UI, the worker and (opt-in) chatops', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['chatops', 'postgresql', 'temporal', 'temporal-ui', 'wsmigrate-worker']);
    expect(compose.services.postgresql.image).toMatch(/^postgres:\d+/);
    expect(compose.services.temporal.image).toMatch(/^temporalio\/auto-setup:1\./);
    expect(compose.services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(compose.services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    expect(compose.services['wsmigrate-worker'].build).toBe('.');
  });

  it('publishes the gRPC, UI and metrics ports on loopback only', () => {
    expect(compose.services.temporal.ports).toEqual(['127.0.0.1:7233:7233']);
    expect(compose.services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    expect(compose.services['wsmigrate-worker'].ports).toEqual(['127.0.0.1:9464:9464']);
  });

  it('lets the published metrics port reach the worker: it binds beyond loopback inside the container', () => {
    expect(compose.services['wsmigrate-worker'].environment?.WSMIGRATE_METRICS_HOST).toBe('0.0.0.0');
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toMatch(/^ENV .*WSMIGRATE_METRICS_HOST=0\.0\.0\.0/m);
  });

  it('gives the worker every setting it needs, with secrets only from the environment', () => {
    const env = compose.services['wsmigrate-worker'].environment ?? {};
    for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'WSMIGRATE_TASK_QUEUE', 'CODER_URL', 'CODER_SESSION_TOKEN', 'WSMIGRATE_BLOB_DIR', 'WSMIGRATE_ENCRYPTION_KEY', 'WSMIGRATE_METRICS_PORT']) {
      expect(env).toHaveProperty(name);
    }
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    for (const secret of ['CODER_SESSION_TOKEN', 'WSMIGRATE_ENCRYPTION_KEY']) {
      expect(env[secret]).toMatch(/^\$\{[A-Z_]+:\?/);
    }
    expect(compose.services['wsmigrate-worker'].volumes?.some((v) => v.endsWith(':' + env.WSMIGRATE_BLOB_DIR))).toBe(true);
  });

  it('passes the S3 blob store settings and AWS credentials through from the environment, file store by default', () => {
    const env = compose.services['wsmigrate-worker'].environment ?? {};
    expect(env.WSMIGRATE_BLOB_URL).toBe('${WSMIGRATE_BLOB_URL:-file:///var/lib/wsmigrate/blobs}');
    for (const name of ['WSMIGRATE_S3_ENDPOINT', 'WSMIGRATE_S3_REGION', 'WSMIGRATE_S3_FORCE_PATH_STYLE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION']) {
      expect(env[name]).toBe(`\${${name}:-}`);
    }
  });

  it('passes the notification settings to the worker from the environment, none inline', () => {
    const env = compose.services['wsmigrate-worker'].environment ?? {};
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_CHANNEL', 'WSMIGRATE_WEBHOOK_URL', 'WSMIGRATE_WEBHOOK_SECRET']) {
      expect({ name, value: env[name] }).toEqual({ name, value: `\${${name}:-}` });
    }
  });

  it('runs chatops (opt-in profile) from the worker image, with its secrets from the environment, on loopback, probed on /healthz', () => {
    const chatops = compose.services.chatops;
    expect(chatops.image).toBe(compose.services['wsmigrate-worker'].image);
    expect(chatops.command).toEqual(['chatops']);
    expect(chatops.profiles).toEqual(['chatops']);
    const env = chatops.environment ?? {};
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.WSMIGRATE_ENCRYPTION_KEY).toBe(compose.services['wsmigrate-worker'].environment?.WSMIGRATE_ENCRYPTION_KEY);
    for (const name of ['SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN', 'WSMIGRATE_SLACK_APPROVERS']) {
      expect({ name, value: env[name] }).toEqual({ name, value: `\${${name}:-}` });
    }
    expect(chatops.ports).toEqual([`127.0.0.1:${env.WSMIGRATE_CHATOPS_PORT}:${env.WSMIGRATE_CHATOPS_PORT}`]);
    expect(chatops.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${env.WSMIGRATE_CHATOPS_PORT}/healthz`);
  });

  it('names only variables the config loader knows (or the AWS SDK or Node reads), in every wsmigrate service', () => {
    for (const service of ['wsmigrate-worker', 'chatops']) {
      for (const name of Object.keys(compose.services[service].environment ?? {})) {
        expect({ service, name, known: configVariableNames().includes(name) || name.startsWith('AWS_') || name === 'NODE_OPTIONS' }).toEqual({ service, name, known: true });
      }
    }
    // The worker's heap is bounded (V8 otherwise sizes it from the host's memory), overridable from the environment.
    expect(compose.services['wsmigrate-worker'].environment?.NODE_OPTIONS).toBe('${NODE_OPTIONS:---max-old-space-size=256 --max-semi-space-size=4}');
  });

  it('builds the worker from a Dockerfile whose entry point runs the worker command', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "dist\/cli\/main.js"\]/);
    expect(dockerfile).toMatch(/CMD \["worker"\]/);
    expect(dockerfile).toMatch(/USER wsmigrate/);
  });
});
