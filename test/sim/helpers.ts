import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { K8S_TEMPLATE_MAIN_TF, packTar, type CoderSimulator } from '../../src/sim';

export const FIXTURES = join(__dirname, '..', 'fixtures', 'sim');

export function fixtureSource(dir: string): string {
  return readFileSync(join(FIXTURES, dir, 'main.tf'), 'utf8');
}

export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** One call to the simulator with plain fetch, as any HTTP client would make it. */
export async function api<T = Record<string, unknown>>(
  sim: CoderSimulator,
  method: string,
  path: string,
  opts: { token?: string | null; json?: unknown; body?: Buffer; contentType?: string } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? sim.token : opts.token;
  if (token !== null) headers['Coder-Session-Token'] = token;
  let body: BodyInit | undefined;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = opts.contentType ?? 'application/octet-stream';
    body = new Uint8Array(opts.body);
  }
  const res = await fetch(`${sim.url}/api/v2${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text !== '') parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

export interface BuildJson {
  id: string;
  build_number: number;
  status: string;
  transition: string;
  template_version_id: string;
  job: { status: string; error?: string; started_at?: string; completed_at?: string };
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

/** Polls a build until its job is terminal, as the Coder CLI does; returns every status seen on the way. */
export async function waitForBuild(sim: CoderSimulator, buildId: string, timeoutMs = 10_000): Promise<{ build: BuildJson; seen: string[] }> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await api<BuildJson>(sim, 'GET', `/workspacebuilds/${buildId}`);
    if (status !== 200) throw new Error(`GET build ${buildId} answered ${status}`);
    if (seen[seen.length - 1] !== body.job.status) seen.push(body.job.status);
    if (TERMINAL.has(body.job.status)) return { build: body, seen };
    if (Date.now() > deadline) throw new Error(`build ${buildId} still ${body.job.status} after ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function startBuild(
  sim: CoderSimulator,
  workspaceId: string,
  body: Record<string, unknown>,
): Promise<BuildJson> {
  const res = await api<BuildJson>(sim, 'POST', `/workspaces/${workspaceId}/builds`, { json: body });
  if (res.status !== 201) throw new Error(`POST build answered ${res.status}: ${res.text}`);
  return (await waitForBuild(sim, res.body.id)).build;
}

export async function latestBuildId(sim: CoderSimulator, workspaceId: string): Promise<string> {
  const ws = await api<{ latest_build: { id: string } }>(sim, 'GET', `/workspaces/${workspaceId}`);
  return ws.body.latest_build.id;
}

/** Uploads a template source, creates a version of the seeded template, waits for its import; promotes it when asked. */
export async function pushTemplateVersion(
  sim: CoderSimulator,
  source: string | { name: string; content: string }[],
  opts: { promote?: boolean; name?: string } = {},
): Promise<{ id: string; job: { status: string; error?: string } }> {
  const tar = await packTar(typeof source === 'string' ? [{ name: 'main.tf', content: source }] : source);
  const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: tar, contentType: 'application/x-tar' });
  if (upload.status !== 201 && upload.status !== 200) throw new Error(`upload answered ${upload.status}`);
  const created = await api<{ id: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
    json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform', ...(opts.name ? { name: opts.name } : {}) },
  });
  if (created.status !== 201) throw new Error(`create version answered ${created.status}: ${created.text}`);
  let version: { id: string; job: { status: string; error?: string } };
  for (;;) {
    version = (await api<{ id: string; job: { status: string; error?: string } }>(sim, 'GET', `/templateversions/${created.body.id}`)).body;
    if (TERMINAL.has(version.job.status)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  if (opts.promote) {
    const promoted = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: version.id } });
    if (promoted.status !== 200) throw new Error(`promote answered ${promoted.status}: ${promoted.text}`);
  }
  return version;
}

/**
 * The runbook's manual state edit, done the crude way an operator would: rename the two
 * kubernetes types to their _v1 twins everywhere in the JSON and bump the serial.
 */
export function migrateStateByHand(stateText: string): string {
  const state = JSON.parse(stateText) as { serial: number; resources: { type: string; instances: { dependencies?: string[] }[] }[] };
  const rename = (s: string): string =>
    s.replace(/\bkubernetes_persistent_volume_claim\b/g, 'kubernetes_persistent_volume_claim_v1').replace(/\bkubernetes_deployment\b/g, 'kubernetes_deployment_v1');
  for (const r of state.resources) {
    r.type = rename(r.type);
    for (const i of r.instances) if (i.dependencies) i.dependencies = i.dependencies.map(rename);
  }
  state.serial += 1;
  return `${JSON.stringify(state, null, 2)}\n`;
}

export async function putState(sim: CoderSimulator, buildId: string, stateText: string, token?: string): Promise<ApiAnswer> {
  return api(sim, 'PUT', `/workspacebuilds/${buildId}/state`, { json: { state: Buffer.from(stateText).toString('base64') }, ...(token ? { token } : {}) });
}

export function homePvcName(workspaceId: string): string {
  return `coder-${workspaceId}-home`;
}

/**
 * The seeded template with a config map named by `generate_name` (as public Coder templates name
 * theirs) mounted by the deployment. `prefix` may use `${data.coder_workspace.me.id}`.
 */
export function withGeneratedConfigMap(prefix: string): string {
  const configMap = `
resource "kubernetes_config_map" "init" {
  metadata {
    generate_name = "${prefix}"
    namespace     = var.namespace
  }
  data = {
    "init.sh" = "echo hello"
  }
}
`;
  return K8S_TEMPLATE_MAIN_TF.replace('resource "kubernetes_deployment" "main" {', `${configMap}\nresource "kubernetes_deployment" "main" {`).replace(
    '        volume {\n          name = "home"',
    '        volume {\n          name = "init"\n          config_map {\n            name = kubernetes_config_map.init.metadata.0.name\n          }\n        }\n        volume {\n          name = "home"',
  );
}

/**
 * A version that forgets the home claim (`removed`, destroy = false) and declares it again as
 * `_v1` named by `generate_name`: a build creates a new claim beside the old one.
 */
export function claimForgottenAndGenerated(): string {
  return K8S_TEMPLATE_MAIN_TF.replace('    name      = "coder-${data.coder_workspace.me.id}-home"', '    generate_name = "coder-${data.coder_workspace.me.id}-home-"')
    .replace('resource "kubernetes_persistent_volume_claim" "home"', 'resource "kubernetes_persistent_volume_claim_v1" "home"')
    .replace(/kubernetes_persistent_volume_claim\.home/g, 'kubernetes_persistent_volume_claim_v1.home')
    .concat('\nremoved {\n  from = kubernetes_persistent_volume_claim.home\n  lifecycle {\n    destroy = false\n  }\n}\n');
}

/**
 * The simulator's template with its home claim sized by a mutable `home_disk_size` parameter
 * (default 10, in Gi): for the tests of parameter values a build keeps, loses or is given back.
 */
export const SIZED_HOME_TEMPLATE_MAIN_TF =
  K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "${data.coder_parameter.size.value}Gi"') +
  '\ndata "coder_parameter" "size" {\n  name    = "home_disk_size"\n  type    = "number"\n  default = 10\n  mutable = true\n}\n';
