import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/** What a client needs to reach one API server: its URL, the CA that signed it, a bearer token. */
export interface KubeConnection {
  server: string;
  caCert: string;
  token: string;
}

/** A kubeconfig for one cluster and one token user (JSON, which every YAML reader accepts). */
export async function writeKubeconfig(path: string, conn: KubeConnection): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'wsmigrate-local', cluster: { server: conn.server, 'certificate-authority-data': Buffer.from(conn.caCert).toString('base64') } }],
    users: [{ name: 'wsmigrate-admin', user: { token: conn.token } }],
    contexts: [{ name: 'wsmigrate-local', context: { cluster: 'wsmigrate-local', user: 'wsmigrate-admin', namespace: 'default' } }],
    'current-context': 'wsmigrate-local',
  };
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

interface Named<T> {
  name: string;
  cluster?: T;
  user?: T;
  context?: T;
}

/**
 * Reads the current context of a kubeconfig that uses a bearer token (what `writeKubeconfig` and
 * most CI clusters give). Client certificates and exec plugins are refused with a clear message.
 */
export async function readKubeconfig(path: string): Promise<KubeConnection> {
  const file = resolve(path.replace(/^~(?=\/)/, homedir()));
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`Cannot read the kubeconfig ${file}: ${(e as Error).message}`);
  }
  const contexts = (doc.contexts ?? []) as Named<Record<string, string>>[];
  const current = contexts.find((c) => c.name === doc['current-context']) ?? contexts[0];
  const clusterName = current?.context?.cluster;
  const userName = current?.context?.user;
  const cluster = ((doc.clusters ?? []) as Named<Record<string, string>>[]).find((c) => c.name === clusterName)?.cluster;
  const user = ((doc.users ?? []) as Named<Record<string, string>>[]).find((u) => u.name === userName)?.user;
  if (!cluster?.server) throw new Error(`The kubeconfig ${file} has no cluster server for its current context; point it at a cluster.`);
  if (!user?.token) {
    throw new Error(`The kubeconfig ${file} has no bearer token for user "${userName ?? '?'}"; wsmigrate reads objects with a token user only (client certificates and exec plugins are not supported).`);
  }
  let caCert = '';
  if (cluster['certificate-authority-data']) caCert = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  else if (cluster['certificate-authority']) caCert = await readFile(resolve(cluster['certificate-authority']), 'utf8');
  return { server: cluster.server, caCert, token: user.token };
}
