import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateApiServerCerts } from '../../../src/adapters/kube/certs';
import { KubeApiError, KubeClient } from '../../../src/adapters/kube/client';
import { readKubeconfig, writeKubeconfig, type KubeConnection } from '../../../src/adapters/kube/kubeconfig';

/**
 * The Kubernetes client the real-stack provisioner checks uids with, against a small HTTPS server
 * (certificates from the same openssl steps the local API server uses): no etcd or kube-apiserver.
 * What it answers decides whether a claim counts as kept: a 404 is "not there" only for a read,
 * any other refusal is an error naming its status, never an object.
 */
describe('KubeClient and the kubeconfig it is built from', () => {
  let dir: string;
  let server: Server;
  let conn: KubeConnection;
  const seen: { method: string; path: string; auth?: string; body: string }[] = [];
  const TOKEN = 'the-token';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-kube-client-'));
    const certs = await generateApiServerCerts(dir);
    server = createServer({ key: readFileSync(certs.serverKey), cert: readFileSync(certs.serverCert) }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body });
        const json = (status: number, o: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(o));
        };
        if (req.url === '/readyz' && req.headers.authorization === 'Bearer starting') return res.end('[-]etcd failed: reason withheld');
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(401, { kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' });
        if (req.url === '/readyz') return res.end('ok');
        if (req.url === '/api/v1/namespaces/coder/persistentvolumeclaims/home' && req.method === 'GET') {
          return json(200, { metadata: { name: 'home', namespace: 'coder', uid: 'uid-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-01-02T00:00:00Z' } });
        }
        if (req.url === '/api/v1/namespaces' && req.method === 'GET') return json(200, { items: [{ metadata: { name: 'coder', uid: 'ns-uid' } }] });
        if (req.url === '/api/v1/namespaces/locked/persistentvolumeclaims' && req.method === 'POST') {
          return json(403, { kind: 'Status', reason: 'Forbidden', message: 'persistentvolumeclaims is forbidden' });
        }
        if (req.url === '/api/v1/namespaces/coder/persistentvolumeclaims' && req.method === 'POST') {
          return json(201, { metadata: { ...(JSON.parse(body) as { metadata: object }).metadata, namespace: 'coder', uid: 'uid-new', resourceVersion: '1' } });
        }
        return json(404, { kind: 'Status', reason: 'NotFound', message: 'not found' });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    conn = { server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caCert: readFileSync(certs.caCert, 'utf8'), token: TOKEN };
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  describe('KubeClient', () => {
    it('reads an object with its bearer token over the pinned CA: namespace, name, uid, deletion time', async () => {
      const client = new KubeClient(conn);
      expect(await client.get('PersistentVolumeClaim', 'coder', 'home')).toEqual({
        kind: 'PersistentVolumeClaim',
        namespace: 'coder',
        name: 'home',
        uid: 'uid-1',
        resourceVersion: '7',
        creationTimestamp: '2026-01-01T00:00:00Z',
        deletionTimestamp: '2026-01-02T00:00:00Z',
      });
      expect(seen.at(-1)).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/coder/persistentvolumeclaims/home', auth: `Bearer ${TOKEN}` });
    });

    it('a missing object read is undefined; a cluster-scoped kind is read without a namespace', async () => {
      const client = new KubeClient(conn);
      expect(await client.get('PersistentVolumeClaim', 'coder', 'gone')).toBeUndefined();
      expect((await client.list('Namespace', 'ignored')).map((n) => [n.name, n.uid])).toEqual([['coder', 'ns-uid']]);
      expect(seen.at(-1)?.path).toBe('/api/v1/namespaces');
    });

    it('a refusal is an error with its status and reason, never an object: a 403 create, a 404 create, a wrong token', async () => {
      const client = new KubeClient(conn);
      const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home' } };
      const forbidden = (await client.create('PersistentVolumeClaim', 'locked', claim).catch((e: unknown) => e)) as KubeApiError;
      expect(forbidden).toBeInstanceOf(KubeApiError);
      expect(forbidden).toMatchObject({ status: 403, reason: 'Forbidden' });
      expect(forbidden.message).toBe('POST /api/v1/namespaces/locked/persistentvolumeclaims: 403 persistentvolumeclaims is forbidden');
      await expect(client.create('ConfigMap', 'nowhere', { metadata: { name: 'x' } })).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
      await expect(new KubeClient({ ...conn, token: 'wrong' }).get('PersistentVolumeClaim', 'coder', 'home')).rejects.toMatchObject({ status: 401 });
      const created = await client.create('PersistentVolumeClaim', 'coder', claim);
      expect(created).toMatchObject({ namespace: 'coder', name: 'home', uid: 'uid-new' });
      expect(JSON.parse(seen.at(-1)?.body ?? '{}')).toEqual(claim);
    });

    it('trusts only the CA it is given', async () => {
      await expect(new KubeClient({ ...conn, caCert: '' }).get('PersistentVolumeClaim', 'coder', 'home')).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    });

    it('is ready only when /readyz answers ok', async () => {
      expect(await new KubeClient(conn).ready()).toBe(true);
      expect(await new KubeClient({ ...conn, token: 'starting' }).ready()).toBe(false);
      expect(await new KubeClient({ ...conn, token: 'wrong' }).ready()).toBe(false);
    });
  });

  describe('readKubeconfig', () => {
    const file = (name: string, doc: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
      return path;
    };
    const cluster = (name: string, server: string, ca: Record<string, string> = {}) => ({ name, cluster: { server, ...ca } });

    it('writes a kubeconfig only its owner can read, and reads back the same connection', async () => {
      const path = join(dir, 'written.kubeconfig');
      await writeKubeconfig(path, conn);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(await readKubeconfig(path)).toEqual(conn);
    });

    it("takes the current context's cluster and user, not the first listed; the CA from its data or its file", async () => {
      writeFileSync(join(dir, 'prod-ca.pem'), 'PROD CA');
      const path = file('two.kubeconfig', {
        clusters: [cluster('dev', 'https://dev:6443', { 'certificate-authority-data': Buffer.from('DEV CA').toString('base64') }), cluster('prod', 'https://prod:6443', { 'certificate-authority': join(dir, 'prod-ca.pem') })],
        users: [{ name: 'dev-user', user: { token: 'dev-token' } }, { name: 'prod-user', user: { token: 'prod-token' } }],
        contexts: [{ name: 'dev', context: { cluster: 'dev', user: 'dev-user' } }, { name: 'prod', context: { cluster: 'prod', user: 'prod-user' } }],
        'current-context': 'prod',
      });
      expect(await readKubeconfig(path)).toEqual({ server: 'https://prod:6443', caCert: 'PROD CA', token: 'prod-token' });
      const dev = file('dev.kubeconfig', { ...JSON.parse(readFileSync(path, 'utf8')), 'current-context': 'dev' });
      expect(await readKubeconfig(dev)).toEqual({ server: 'https://dev:6443', caCert: 'DEV CA', token: 'dev-token' });
    });

    it('reads ~/ as the home directory', async () => {
      const path = join(dir, 'home.kubeconfig');
      await writeKubeconfig(path, conn);
      // The file's path from the home directory (through '..' when the temp dir is outside it).
      expect((await readKubeconfig(`~/${relative(homedir(), path)}`)).server).toBe(conn.server);
    });

    it('refuses a context without a cluster server, a user without a token (client certificates, exec plugins), and a file it cannot read', async () => {
      const ctx = { contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }], 'current-context': 'c' };
      const noServer = file('no-server.kubeconfig', { ...ctx, clusters: [{ name: 'k', cluster: {} }], users: [{ name: 'u', user: { token: 't' } }] });
      await expect(readKubeconfig(noServer)).rejects.toThrow(/has no cluster server for its current context/);
      const certUser = file('cert-user.kubeconfig', { ...ctx, clusters: [cluster('k', 'https://k:6443')], users: [{ name: 'u', user: { 'client-certificate-data': 'x', 'client-key-data': 'y' } }] });
      await expect(readKubeconfig(certUser)).rejects.toThrow(/has no bearer token for user "u"; wsmigrate reads objects with a token user only/);
      await expect(readKubeconfig(join(dir, 'missing.kubeconfig'))).rejects.toThrow(/^Cannot read the kubeconfig .*missing\.kubeconfig/);
    });
  });
});
