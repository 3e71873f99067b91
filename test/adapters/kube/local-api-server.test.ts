import { existsSync } from 'node:fs';
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
});
