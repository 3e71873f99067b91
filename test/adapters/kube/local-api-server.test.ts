import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { KubeClient, readKubeconfig, startLocalKubeApi } from '../../../src/adapters/kube';
import { describeRealStack } from '../../harness/real-stack';

jest.setTimeout(180_000);

describeRealStack('the local Kubernetes API server (real etcd + kube-apiserver)', () => {
  it('starts on loopback, writes a kubeconfig that reaches it, stores objects with uids, and stops cleanly', async () => {
    const api = await startLocalKubeApi();
    let stopped = false;
    try {
      expect(api.connection.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      // A client built from the written kubeconfig alone (CA + token) reaches the same server.
      const client = new KubeClient(await readKubeconfig(api.kubeconfigPath));
      expect(await client.ready()).toBe(true);
      const created = await client.create('PersistentVolumeClaim', 'default', {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'home' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
      expect(created.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect((await client.get('PersistentVolumeClaim', 'default', 'home'))?.uid).toBe(created.uid);
      expect(await client.get('PersistentVolumeClaim', 'default', 'nothing-here')).toBeUndefined();
      // A wrong token is refused: the token is what authenticates.
      const stranger = new KubeClient({ ...api.connection, token: 'not-the-token' });
      await expect(stranger.get('PersistentVolumeClaim', 'default', 'home')).rejects.toThrow(/401/);

      await api.stop();
      stopped = true;
      expect(existsSync(api.dir)).toBe(false);
      expect(await client.ready()).toBe(false);
    } finally {
      if (!stopped) await api.stop();
    }
  });

  async function holdApiServer(args: string[]) {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'fixtures', 'hold-api-server.ts'), ...args], {
      cwd: join(__dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    const info = await new Promise<{ server: string; dir: string }>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] ?? '{}'));
      });
      child.once('exit', () => reject(new Error('the helper exited before the API server was ready')));
    });
    return { child, exited, info };
  }

  /**
   * Polls until nothing listens on the port: SIGKILL is delivered asynchronously on a loaded machine,
   * and a listener torn down mid-handshake answers ECONNRESET before the port refuses.
   */
  async function portCloses(server: string): Promise<string> {
    const port = Number(new URL(server).port);
    const probe = () =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
    let result = await probe();
    for (let i = 0; i < 50 && (result === 'connected' || result === 'ECONNRESET'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      result = await probe();
    }
    return result;
  }

  it('a SIGINT to a process that does not handle it stops etcd and the API server and removes their files', async () => {
    const { child, exited, info } = await holdApiServer([]);
    expect(existsSync(info.dir)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe('SIGINT');
    expect(existsSync(info.dir)).toBe(false);
    expect(await portCloses(info.server)).toBe('ECONNREFUSED');
  });

  it('a crash of the owning process does not orphan etcd and the API server', async () => {
    const { exited, info } = await holdApiServer(['--crash']);
    expect(await exited).toBe(1);
    expect(existsSync(info.dir)).toBe(false);
    expect(await portCloses(info.server)).toBe('ECONNREFUSED');
  });
});
