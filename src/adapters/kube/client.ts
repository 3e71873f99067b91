import { request } from 'node:https';
import type { KubeConnection } from './kubeconfig';

/** The few kinds wsmigrate reads or creates, with their REST collection (namespaced unless noted). */
const RESOURCES: Record<string, { group: string; plural: string; clusterScoped?: boolean }> = {
  Namespace: { group: 'api/v1', plural: 'namespaces', clusterScoped: true },
  PersistentVolumeClaim: { group: 'api/v1', plural: 'persistentvolumeclaims' },
  ConfigMap: { group: 'api/v1', plural: 'configmaps' },
  Secret: { group: 'api/v1', plural: 'secrets' },
  Service: { group: 'api/v1', plural: 'services' },
  Pod: { group: 'api/v1', plural: 'pods' },
  Deployment: { group: 'apis/apps/v1', plural: 'deployments' },
  StatefulSet: { group: 'apis/apps/v1', plural: 'statefulsets' },
  Ingress: { group: 'apis/networking.k8s.io/v1', plural: 'ingresses' },
  CronJob: { group: 'apis/batch/v1', plural: 'cronjobs' },
  Job: { group: 'apis/batch/v1', plural: 'jobs' },
};

export interface KubeObjectMeta {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  deletionTimestamp?: string;
}

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

function collectionPath(kind: string, namespace: string): string {
  const r = RESOURCES[kind];
  if (!r) throw new Error(`wsmigrate cannot read ${kind} objects from the API server (known: ${Object.keys(RESOURCES).join(', ')}).`);
  return r.clusterScoped ? `/${r.group}/${r.plural}` : `/${r.group}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`;
}

interface RawObject {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string; deletionTimestamp?: string };
}

function meta(kind: string, o: RawObject): KubeObjectMeta {
  const m = o.metadata ?? {};
  return {
    kind,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    resourceVersion: m.resourceVersion ?? '',
    creationTimestamp: m.creationTimestamp ?? '',
    ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
  };
}

/** A minimal Kubernetes REST client (bearer token, pinned CA): enough to check objects' uids. */
export class KubeClient {
  constructor(private readonly conn: KubeConnection) {}

  /** GET/POST/DELETE one path; answers the parsed body, or undefined on 404. */
  async call(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<unknown> {
    const url = new URL(path, this.conn.server);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ...(this.conn.caCert ? { ca: this.conn.caCert } : {}),
          headers: {
            Authorization: `Bearer ${this.conn.token}`,
            Accept: 'application/json',
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status === 404 && method === 'GET') return resolve(undefined);
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // plain text answers (/readyz) stay text
            }
            if (status >= 200 && status < 300) return resolve(parsed);
            const st = parsed as { reason?: string; message?: string };
            reject(new KubeApiError(status, st.reason ?? '', `${method} ${url.pathname}: ${status} ${st.message ?? text.slice(0, 200)}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  async get(kind: string, namespace: string, name: string): Promise<KubeObjectMeta | undefined> {
    const o = (await this.call('GET', `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`)) as RawObject | undefined;
    return o ? meta(kind, o) : undefined;
  }

  /** Every object of a kind in a namespace (all namespaces for cluster-scoped kinds). */
  async list(kind: string, namespace: string): Promise<KubeObjectMeta[]> {
    const o = (await this.call('GET', collectionPath(kind, namespace))) as { items?: RawObject[] } | undefined;
    return (o?.items ?? []).map((i) => meta(kind, i));
  }

  /** Every object of a kind in every namespace. */
  async listAll(kind: string): Promise<KubeObjectMeta[]> {
    const r = RESOURCES[kind];
    if (!r) throw new Error(`wsmigrate cannot list ${kind} objects (known: ${Object.keys(RESOURCES).join(', ')}).`);
    const o = (await this.call('GET', `/${r.group}/${r.plural}`)) as { items?: RawObject[] } | undefined;
    return (o?.items ?? []).map((i) => meta(kind, i));
  }

  async create(kind: string, namespace: string, object: Record<string, unknown>): Promise<KubeObjectMeta> {
    return meta(kind, (await this.call('POST', collectionPath(kind, namespace), object)) as RawObject);
  }

  async ready(): Promise<boolean> {
    try {
      return (await this.call('GET', '/readyz', undefined, 2_000)) === 'ok';
    } catch {
      return false;
    }
  }
}
