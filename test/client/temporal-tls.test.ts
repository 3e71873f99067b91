import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, temporalConnectionOptions } from '../../src/client/temporal-client';
import { ConfigError, loadConfig } from '../../src/config/env';
import { startTemplateMigration } from '../../src/client/migrations';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { freePort, spawnCliProcess, spawnCliWorker, type CliWorker } from '../worker/fixtures/cli-worker';
import { commandRequest, send } from '../chatops/fake-slack';
import { makeTestPki, startTlsProxy, type TlsProxy } from './fixtures/tls-proxy';

describe('connecting to Temporal with TLS, mTLS or an API key', () => {
  const pki = makeTestPki();
  const tlsEnv = (address: string, cert = pki.clientCert, key = pki.clientKey) => ({
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TLS_CA: pki.caCert,
    TEMPORAL_TLS_CERT: cert,
    TEMPORAL_TLS_KEY: key,
    TEMPORAL_TLS_SERVER_NAME: pki.serverName,
  });

  describe('configuration', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, pki.dir);
      } catch (err) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };

    it('names what is missing or unreadable', () => {
      expect(problems({ TEMPORAL_TLS_CERT: pki.clientCert })).toMatch(/TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not/);
      expect(problems({ TEMPORAL_TLS_KEY: pki.clientKey })).toMatch(/TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not/);
      expect(problems({ TEMPORAL_TLS_CA: 'nope/ca.pem' })).toMatch(new RegExp(`TEMPORAL_TLS_CA names ${join(pki.dir, 'nope/ca.pem')}, which cannot be read \\(ENOENT\\)`));
      writeFileSync(join(pki.dir, 'junk.pem'), 'not a certificate');
      expect(problems({ TEMPORAL_TLS_CA: 'junk.pem' })).toMatch(/TEMPORAL_TLS_CA names .*junk\.pem, which is not PEM/);
      expect(problems({ TEMPORAL_TLS: 'yes' })).toMatch(/TEMPORAL_TLS must be true or false/);
    });

    it('turns TLS on for a CA, a client pair, a server name, TEMPORAL_TLS=true or an API key, and never shows the key', () => {
      expect(loadConfig({}, pki.dir).temporalTls).toBeUndefined();
      expect(temporalConnectionOptions(loadConfig({}, pki.dir))).toEqual({ address: '127.0.0.1:7233' });
      const opts = temporalConnectionOptions(loadConfig(tlsEnv('t:7233'), pki.dir));
      expect(opts.tls?.serverNameOverride).toBe(pki.serverName);
      expect(opts.tls?.serverRootCACertificate?.toString()).toMatch(/BEGIN CERTIFICATE/);
      expect(opts.tls?.clientCertPair?.key.toString()).toMatch(/BEGIN PRIVATE KEY/);
      const cloud = loadConfig({ TEMPORAL_API_KEY: 'cloud-key-123' }, pki.dir);
      expect(temporalConnectionOptions(cloud)).toEqual({ address: '127.0.0.1:7233', tls: {}, apiKey: 'cloud-key-123' });
      expect(JSON.stringify(cloud)).not.toContain('cloud-key-123');
      expect(JSON.stringify(loadConfig(tlsEnv('t:7233'), pki.dir))).not.toMatch(/PRIVATE KEY/);
    });
  });

  describe('through a TLS-terminating proxy in front of the dev server (mTLS)', () => {
    let proxy: TlsProxy;
    let env: MigrationEnv;
    let worker: CliWorker | undefined;

    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 1, buildLatencyMs: 20 });
      proxy = await startTlsProxy(pki, env.t.address);
    });
    afterAll(async () => {
      await worker?.stop();
      await proxy?.close();
      await env?.close();
    });

    it('the CLI client connects with a client certificate; a certificate from another CA is refused', async () => {
      const { client, connection } = await connectClient(loadConfig(tlsEnv(proxy.address), pki.dir));
      try {
        const ns = await client.workflowService.describeNamespace({ namespace: 'default' });
        expect(ns.namespaceInfo?.name).toBe('default');
      } finally {
        await connection.close();
      }
      expect(proxy.authorized()).toBeGreaterThan(0);
      const stranger = loadConfig({ ...tlsEnv(proxy.address, pki.strangerCert, pki.strangerKey) }, pki.dir);
      await expect(connectClient(stranger).then(async (c) => {
        try {
          await c.client.workflowService.describeNamespace({ namespace: 'default' });
        } finally {
          await c.connection.close();
        }
      })).rejects.toThrow();
    });

    it('a worker process connects with mTLS and runs a migration started by a TLS client', async () => {
      worker = await spawnCliWorker({
        ...tlsEnv(proxy.address),
        WSMIGRATE_TASK_QUEUE: env.taskQueue,
        CODER_URL: env.sim.url,
        CODER_SESSION_TOKEN: env.sim.token,
        WSMIGRATE_BLOB_DIR: env.blobDir,
        WSMIGRATE_METRICS_PORT: '0',
      });
      const { client, connection } = await connectClient(loadConfig(tlsEnv(proxy.address), pki.dir));
      try {
        const handle = await startTemplateMigration(client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
        expect(((await handle.result()) as { versionId: string }).versionId).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        await connection.close();
      }
      expect(worker.output()).not.toMatch(/PRIVATE KEY/);
    }, 180_000);

    it('the chat bridge (`wsmigrate chatops`) connects with mTLS and logs JSON lines through the process logger', async () => {
      const port = await freePort();
      const signing = 'tls-chatops-signing-secret-5e6f';
      const before = proxy.authorized();
      const chatops = await spawnCliProcess(
        'chatops',
        { ...tlsEnv(proxy.address), SLACK_SIGNING_SECRET: signing, WSMIGRATE_SLACK_APPROVERS: 'UALICE=alice', WSMIGRATE_CHATOPS_PORT: String(port) },
        /listening on/,
      );
      try {
        const url = `http://127.0.0.1:${port}/slack/events`;
        const listed = await send(url, commandRequest(signing, { userId: 'UALICE', text: 'approvals', responseUrl: 'http://127.0.0.1:9/unused' }));
        // It read the namespace's pending approvals through the proxy; the suite's other files share the
        // dev server, so whether any is waiting right now is theirs to say.
        expect(listed.status).toBe(200);
        expect(listed.body.text).toMatch(/^(Nothing is waiting for an approval\.|\d+ waiting for a decision:)/);
        const missing = await send(url, commandRequest(signing, { userId: 'UALICE', text: 'status wsmigrate-fleet/coder/no-such-template', responseUrl: 'http://127.0.0.1:9/unused' }));
        expect(missing.status).toBe(404);
        expect(missing.body.text).toMatch(/no migration 'wsmigrate-fleet\/coder\/no-such-template'/);
        // Only a client with the CA and the client pair gets through the mTLS proxy.
        expect(proxy.authorized()).toBeGreaterThan(before);
        const lines = chatops.output().split('\n').filter((l) => l.trim().startsWith('{'));
        expect(lines.map((l) => JSON.parse(l) as { component?: string; msg?: string })).toEqual(
          expect.arrayContaining([expect.objectContaining({ component: 'chatops', msg: expect.stringMatching(/^listening on/) }), expect.objectContaining({ component: 'chatops', msg: 'slack request' })]),
        );
        expect(chatops.output()).not.toContain(signing);
      } finally {
        await chatops.stop();
      }
    }, 120_000);
  });
});
