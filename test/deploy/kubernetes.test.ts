import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startLocalKubeApi, type LocalKubeApi } from '../../src/adapters/kube';
import { configVariableNames, loadConfig } from '../../src/config/env';
import { REAL_STACK_READY } from '../harness/real-stack';
import { itNeeds } from '../harness/needs-tool';

// Parsed and checked here; the local kube-apiserver (built by `make test`) validates every field (below).
const root = join(__dirname, '..', '..');
const dir = join(root, 'deploy', 'kubernetes');

type Doc = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: unknown };
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: unknown } };
type Container = {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
};
type PodSpec = { securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }; containers: Container[] };
type Deployment = Doc & { spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
type Service = Doc & { spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string | number }[] } };

const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const docs: (Doc & { file: string })[] = files
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => ({ ...(d.toJS() as Doc), file })));
const kustomization = parseAllDocuments(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'))[0].toJS() as { resources: string[]; namespace: string; images: { name: string; newName: string }[] };
const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
const deployment = (name: string) => byKind('Deployment').find((d) => d.metadata.name === name) as unknown as Deployment;
const configMap = byKind('ConfigMap')[0] as unknown as Doc & { data: Record<string, string> };
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** Variables that hold secrets: only ever from a Secret, never a value in the repository. */
const SECRET_VARS = [
  'CODER_SESSION_TOKEN',
  'WSMIGRATE_ENCRYPTION_KEY',
  'TEMPORAL_API_KEY',
  'WSMIGRATE_CODEC_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'WSMIGRATE_WEBHOOK_URL',
  'WSMIGRATE_WEBHOOK_SECRET',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];
/** Variables the AWS SDK reads for the S3 blob store (not wsmigrate's own settings). */
const AWS_VARS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_PROFILE'];
/** Read by Node itself. */
const NODE_VARS = ['NODE_OPTIONS'];
const known = (name: string) => configVariableNames().includes(name) || AWS_VARS.includes(name) || NODE_VARS.includes(name);

describe('Kubernetes manifests (deploy/kubernetes, kustomize)', () => {
  it('kustomization lists every manifest, and the kinds are the ones an operator expects', () => {
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'ConfigMap/wsmigrate',
      'Deployment/wsmigrate-chatops',
      'Deployment/wsmigrate-worker',
      'Namespace/wsmigrate',
      'PodDisruptionBudget/wsmigrate-worker',
      'Service/wsmigrate-chatops',
      'Service/wsmigrate-worker-metrics',
      'ServiceAccount/wsmigrate',
    ]);
  });

  it('carries no secret value: no Secret object, secret variables only through secretKeyRef, none in the ConfigMap', () => {
    expect(byKind('Secret')).toEqual([]);
    for (const name of SECRET_VARS) expect(configMap.data).not.toHaveProperty(name);
    for (const d of byKind('Deployment') as unknown as Deployment[]) {
      for (const c of d.spec.template.spec.containers) {
        for (const e of c.env ?? []) {
          if (SECRET_VARS.includes(e.name) || /TOKEN|SECRET|PASSWORD|_KEY$/.test(e.name)) {
            expect({ var: e.name, value: e.value, ref: e.valueFrom?.secretKeyRef?.name }).toEqual({ var: e.name, value: undefined, ref: 'wsmigrate' });
          }
        }
        for (const from of c.envFrom ?? []) expect(from.secretRef).toBeUndefined(); // explicit keys only: a Secret's extra keys never leak in
      }
    }
    const everything = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    expect(everything).not.toMatch(/\b[0-9a-f]{64}\b|xox[bp]-|-----BEGIN|AKIA[0-9A-Z]{16}/);
  });

  it('runs the worker as the Dockerfile builds it: two replicas, probes on the metrics port, non-root, read-only root, resources', () => {
    const d = deployment('wsmigrate-worker');
    expect(d.spec.replicas).toBe(2);
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    expect(c.image).toBe(kustomization.images[0].name);
    expect(c.args).toEqual([/CMD \["(\w+)"\]/.exec(dockerfile)?.[1]]);
    const uid = Number(/--uid (\d+)/.exec(dockerfile)?.[1]);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid });
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources?.limits?.memory).toBeDefined();
    // The heap is bounded well under the pod's memory limit (V8 sizes it from the node's memory otherwise).
    const heapMb = Number(/--max-old-space-size=(\d+)/.exec(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '')?.[1]);
    const limitMb = Number(/^(\d+)Gi$/.exec(c.resources?.limits?.memory ?? '')?.[1]) * 1024;
    expect(heapMb).toBeGreaterThan(0);
    expect(heapMb).toBeLessThanOrEqual(limitMb * 0.6);
    // Young generations bounded too, and two malloc arenas in the image: bench/fleet runs the worker with exactly these.
    expect(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value).toMatch(/--max-semi-space-size=\d+/);
    expect(dockerfile).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    const metricsPort = c.ports?.find((p) => p.name === 'metrics')?.containerPort;
    expect(metricsPort).toBe(Number(configMap.data.WSMIGRATE_METRICS_PORT));
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${metricsPort}$`, 'm'));
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(c.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
  });

  it('configures the worker with values the config loader accepts, binding metrics beyond loopback and backups to object storage', () => {
    const containerVars = (byKind('Deployment') as unknown as Deployment[]).flatMap((d) => d.spec.template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name)));
    expect(containerVars).toEqual(expect.arrayContaining(['SLACK_SIGNING_SECRET', 'WSMIGRATE_WEBHOOK_URL']));
    for (const name of [...Object.keys(configMap.data), ...containerVars]) {
      expect({ name, known: known(name) }).toEqual({ name, known: true });
    }
    const env = { ...configMap.data, CODER_SESSION_TOKEN: 'tokenid-tokensecretvalue', WSMIGRATE_ENCRYPTION_KEY: 'ab'.repeat(32), WSMIGRATE_BLOB_DIR: configMap.data.WSMIGRATE_BLOB_DIR };
    const cfg = loadConfig(env, '/');
    expect(cfg).toMatchObject({ metricsHost: '0.0.0.0', metricsPort: 9464, taskQueue: 'wsmigrate' });
    // The image's WSMIGRATE_BLOB_DIR default is cleared, so only the S3 URL names the store.
    expect(dockerfile).toMatch(/WSMIGRATE_BLOB_DIR=/);
    expect(configMap.data.WSMIGRATE_BLOB_DIR).toBe('');
    expect(configMap.data.WSMIGRATE_BLOB_URL).toMatch(/^s3:\/\//);
  });

  it('serves metrics and chatops through Services that select the right pods and named ports', () => {
    const metrics = byKind('Service').find((s) => s.metadata.name === 'wsmigrate-worker-metrics') as unknown as Service;
    expect(metrics.spec.selector).toEqual(deployment('wsmigrate-worker').spec.selector.matchLabels);
    expect(metrics.spec.ports).toEqual([expect.objectContaining({ name: 'metrics', targetPort: 'metrics' })]);
    const chat = deployment('wsmigrate-chatops');
    const chatSvc = byKind('Service').find((s) => s.metadata.name === 'wsmigrate-chatops') as unknown as Service;
    expect(chatSvc.spec.selector).toEqual(chat.spec.selector.matchLabels);
    const chatC = chat.spec.template.spec.containers[0];
    expect(chatC.args).toEqual(['chatops']);
    expect(chatC.ports?.[0].containerPort).toBe(Number(configMap.data.WSMIGRATE_CHATOPS_PORT));
    expect(chatC.livenessProbe?.httpGet?.path).toBe('/healthz');
    for (const d of [chat, deployment('wsmigrate-worker')]) {
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    }
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
  itNeeds(kubectl, 'kubectl', 'install kubectl (the CI image has it)')('kustomize renders it, with the image rewritten (kubectl kustomize)', () => {
    const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    expect(out).toContain(`image: ${kustomization.images[0].newName}:`);
    expect(out).toMatch(/namespace: wsmigrate/);
  });

  // A real API server validates every field (and PodSecurity 'restricted' warns on any pod spec it
  // would refuse): the local kube-apiserver that `make test` builds for the real provisioner.
  describe('server-side validation', () => {
    let api: LocalKubeApi | undefined;
    beforeAll(async () => {
      if (REAL_STACK_READY && kubectl) api = await startLocalKubeApi();
    }, 180_000);
    afterAll(async () => api?.stop());

    itNeeds(REAL_STACK_READY && kubectl, 'kubectl', 'install kubectl (the CI image has it)')('the API server accepts every manifest (kubectl apply --dry-run=server -k), with no warning', () => {
      const kubectlAt = (...args: string[]) => spawnSync('kubectl', ['--kubeconfig', api?.kubeconfigPath ?? '', ...args], { encoding: 'utf8' });
      // A dry run creates nothing, so the namespaced objects need their namespace to exist for real.
      const namespaceFile = docs.find((d) => d.kind === 'Namespace')?.file;
      expect(namespaceFile).toBeDefined();
      const ns = kubectlAt('apply', '-f', join(dir, namespaceFile ?? ''));
      expect({ status: ns.status, stderr: ns.stderr }).toEqual({ status: 0, stderr: '' });
      const r = kubectlAt('apply', '--dry-run=server', '-k', dir);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      for (const d of docs) expect(r.stdout).toMatch(new RegExp(`^${d.kind.toLowerCase()}(\\.[a-z.]+)?/${d.metadata.name} (created|configured) \\(server dry run\\)$`, 'm'));
    });
  });
});
