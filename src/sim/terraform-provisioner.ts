import execa from 'execa';
import { createHash } from 'node:crypto';
import { copyFile } from 'node:fs/promises';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeClient, readKubeconfig, realStackTools, startLocalKubeApi, type LocalKubeApi } from '../adapters/kube';
import { writeMirrorCliConfig } from '../adapters/terraform/cli-config';
import { terraformPath } from '../config/tools';
import { stageLine, tfLine, type LogLine } from './build-log';
import { identityFromAttributes } from './build-plan';
import type { ProvisionRequest, ProvisionResult, SimProvisioner } from './provisioner';
import { STAGE_OF } from './structural-provisioner';
import { parseState } from './terraform-state';
import type { KubeClusterView, KubeObject, PvcLoss } from './types';
import type { WorkspaceContext } from './workspace-context';

const PVC = 'PersistentVolumeClaim';
/** Kinds the cluster view lists after each build. */
const VIEW_KINDS = [PVC, 'Deployment', 'ConfigMap'];
/**
 * An apply here takes about a second. One that runs for two minutes is stuck, and there is a real way
 * to get stuck: an old version applied to a migrated state destroys the _v1 PVC and creates the
 * old-type one of the same name concurrently; when the create wins, the destroy waits for a name that
 * exists again. Coder's provisioner would fail that build at its own timeout; so does this one.
 */
const APPLY_TIMEOUT_MS = 2 * 60_000;

export interface TerraformProvisionerOptions {
  /** An existing cluster's kubeconfig; without one a local etcd + kube-apiserver is started. */
  kubeconfig?: string;
  /** Namespaces the templates expect to exist, as a cluster admin would have made them. Default ['coder']. */
  namespaces?: string[];
  /**
   * How long an interrupted (canceled) apply may run on before it is killed (SIGKILL), as Coder's
   * ExitTimeout (provisioner/terraform/serve.go, default 5 minutes; the kill is exec's on killCtx,
   * interruptCommandOnCancel in executor_unix.go). Unset: only the 2-minute apply limit ends it.
   * Tests set a short one so a cancel the provider outlasts does not wait out two minutes.
   */
  exitTimeoutMs?: number;
}

/**
 * The environment Coder's provisioner gives the coder provider for one build (provisioner/terraform/
 * provision.go provisionEnv): CODER_WORKSPACE_OWNER is the username, CODER_WORKSPACE_OWNER_NAME the
 * full name as stored, '' when the user has none (the provider then reads "default").
 */
export function coderProvisionerEnv(ctx: WorkspaceContext, buildId: string): Record<string, string> {
  return {
    CODER_AGENT_URL: ctx.accessUrl,
    CODER_WORKSPACE_TRANSITION: ctx.transition,
    CODER_WORKSPACE_NAME: ctx.workspaceName,
    CODER_WORKSPACE_ID: ctx.workspaceId,
    CODER_WORKSPACE_OWNER: ctx.ownerUsername,
    CODER_WORKSPACE_OWNER_ID: ctx.ownerId,
    CODER_WORKSPACE_OWNER_EMAIL: ctx.ownerEmail,
    CODER_WORKSPACE_OWNER_NAME: ctx.ownerFullName,
    CODER_WORKSPACE_OWNER_LOGIN_TYPE: 'password',
    CODER_WORKSPACE_TEMPLATE_ID: ctx.templateId,
    CODER_WORKSPACE_TEMPLATE_NAME: ctx.templateName,
    CODER_WORKSPACE_TEMPLATE_VERSION: ctx.templateVersionName,
    CODER_WORKSPACE_BUILD_ID: buildId,
    ...Object.fromEntries(Object.entries(ctx.parameters).map(([name, value]) => [`CODER_PARAMETER_${createHash('sha256').update(name).digest('hex')}`, value])),
  };
}

function toLines(text: string, stage: string): LogLine[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/^[╷│╵]\s?/, '').trimEnd())
    .filter((l) => l !== '')
    .map((l) => tfLine(stage, l, /^Error:/.test(l) ? 'error' : 'info'));
}

/** The job's error text: Terraform's first error with the lines that say where. */
function firstError(text: string): string {
  const lines = toLines(text, '').map((l) => l.output);
  const at = lines.findIndex((l) => l.startsWith('Error:'));
  return at >= 0 ? lines.slice(at, at + 4).join(' ').replace(/\s+/g, ' ') : lines.slice(-3).join(' ');
}

class ApiClusterView implements KubeClusterView {
  snapshot: KubeObject[] = [];
  readonly losses: PvcLoss[] = [];

  objects(): KubeObject[] {
    return this.snapshot.map((o) => ({ ...o }));
  }

  pvc(namespace: string, name: string): KubeObject | undefined {
    const found = this.snapshot.find((o) => o.kind === PVC && o.namespace === namespace && o.name === name);
    return found ? { ...found } : undefined;
  }

  pvcLosses(): PvcLoss[] {
    return this.losses.map((l) => ({ ...l }));
  }
}

/**
 * The real provisioner: each build runs the template version's source with real Terraform in a
 * scratch directory (`init` offline against the provider mirror, then `apply`, or `apply -destroy`
 * for a delete), the previous build's state as input and the coder provider's environment as
 * Coder sets it, against a real Kubernetes API server. Logs are Terraform's; the resulting state
 * is what Terraform wrote, also when the apply failed.
 */
export class TerraformProvisioner implements SimProvisioner {
  readonly kind = 'terraform' as const;
  readonly cluster = new ApiClusterView();
  /** One `terraform init` per template source: builds share its data dir (providers are symlinks into the mirror). */
  private readonly inits = new Map<string, Promise<{ dataDir: string; lockFile: string; logs: string }>>();

  private constructor(
    readonly kubeconfigPath: string,
    readonly client: KubeClient,
    private readonly workDir: string,
    private readonly cliConfig: string,
    private readonly local: LocalKubeApi | undefined,
    private readonly exitTimeoutMs: number | undefined,
  ) {}

  static async start(opts: TerraformProvisionerOptions = {}): Promise<TerraformProvisioner> {
    if (opts.exitTimeoutMs !== undefined && (!Number.isInteger(opts.exitTimeoutMs) || opts.exitTimeoutMs < 1)) {
      throw new Error(`exitTimeoutMs must be a whole number of milliseconds, at least 1 (leave it out for the 2-minute apply limit only); got ${String(opts.exitTimeoutMs)}.`);
    }
    const tools = realStackTools();
    const workDir = await mkdtemp(join(tmpdir(), 'wsmigrate-tfprov-'));
    let local: LocalKubeApi | undefined;
    try {
      const cliConfig = join(workDir, 'terraform.rc');
      await writeMirrorCliConfig(cliConfig, tools.providerMirror);
      let kubeconfigPath = opts.kubeconfig;
      let client: KubeClient;
      if (kubeconfigPath) {
        client = new KubeClient(await readKubeconfig(kubeconfigPath));
      } else {
        local = await startLocalKubeApi({ tools });
        kubeconfigPath = local.kubeconfigPath;
        client = local.client;
      }
      for (const ns of opts.namespaces ?? ['coder']) {
        if (!(await client.get('Namespace', '', ns))) await client.create('Namespace', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
      const p = new TerraformProvisioner(kubeconfigPath, client, workDir, cliConfig, local, opts.exitTimeoutMs);
      await p.refresh();
      return p;
    } catch (e) {
      await local?.stop();
      await rm(workDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Re-reads the cluster view from the API server. */
  async refresh(): Promise<void> {
    const objects: KubeObject[] = [];
    for (const kind of VIEW_KINDS) {
      for (const o of await this.client.listAll(kind)) {
        if (o.deletionTimestamp) continue;
        objects.push({ kind, namespace: o.namespace, name: o.name, uid: o.uid, createdAt: o.creationTimestamp });
      }
    }
    this.cluster.snapshot = objects;
    for (const loss of this.cluster.losses) {
      if (loss.newUid !== undefined) continue;
      const now = this.cluster.pvc(loss.namespace, loss.name);
      if (now && now.uid !== loss.oldUid) loss.newUid = now.uid;
    }
  }

  private terraform(args: string[], cwd: string, env: Record<string, string>, timeoutMs: number) {
    return execa(terraformPath(), args, {
      cwd,
      env: { ...env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: this.cliConfig, KUBE_CONFIG_PATH: this.kubeconfigPath },
      extendEnv: true,
      reject: false,
      stdin: 'ignore',
      all: true,
      timeout: timeoutMs,
    });
  }

  private async writeSource(dir: string, files: readonly { name: string; content: string | Buffer }[]): Promise<void> {
    for (const f of files) {
      const path = join(dir, f.name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, f.content);
    }
  }

  /** Inits a template source once (offline, from the mirror); a failed init is retried by the next build. */
  private initOnce(files: readonly { name: string; content: string | Buffer }[]): Promise<{ dataDir: string; lockFile: string; logs: string }> {
    const hash = createHash('sha256');
    for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) hash.update(f.name).update('\0').update(f.content).update('\0');
    const key = hash.digest('hex').slice(0, 16);
    let pending = this.inits.get(key);
    if (!pending) {
      pending = (async () => {
        const dir = join(this.workDir, `init-${key}`);
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir);
        await this.writeSource(dir, files);
        const init = await this.terraform(['init', '-input=false', '-no-color'], dir, {}, APPLY_TIMEOUT_MS);
        if (init.exitCode !== 0 || init.timedOut) throw new Error(`terraform init failed: ${firstError(init.all ?? '')}`);
        return { dataDir: join(dir, '.terraform'), lockFile: join(dir, '.terraform.lock.hcl'), logs: init.all ?? '' };
      })();
      this.inits.set(key, pending);
      pending.catch(() => this.inits.delete(key));
    }
    return pending;
  }

  async provision(req: ProvisionRequest): Promise<ProvisionResult> {
    const { ctx } = req;
    const dir = await mkdtemp(join(this.workDir, 'build-'));
    try {
      const files = await req.files();
      await this.writeSource(dir, files);
      const stateFile = join(dir, 'terraform.tfstate');
      if (req.state.length > 0) await writeFile(stateFile, req.state, { mode: 0o600 });
      const pvcsBefore = this.pvcsInState(req.state);
      const env = coderProvisionerEnv(ctx, req.buildId);
      const logs: LogLine[] = [stageLine('Setting up')];

      let init: { dataDir: string; lockFile: string; logs: string };
      try {
        init = await this.initOnce(files);
      } catch (e) {
        const message = (e as Error).message;
        logs.push(tfLine('Setting up', `Error: ${message}`, 'error'));
        return { state: req.state, logs, error: message };
      }
      logs.push(...toLines(init.logs, 'Setting up'));
      await copyFile(init.lockFile, join(dir, '.terraform.lock.hcl')).catch(() => undefined); // none when the template has no providers
      env.TF_DATA_DIR = init.dataDir;

      const stage = STAGE_OF[ctx.transition];
      logs.push(stageLine(stage));
      const varArgs = (req.variables ?? []).flatMap((v) => ['-var', `${v.name}=${v.value}`]);
      const applyArgs = ['apply', '-input=false', '-no-color', '-auto-approve', ...varArgs, ...(ctx.transition === 'delete' ? ['-destroy'] : [])];
      const applying = this.terraform(applyArgs, dir, env, APPLY_TIMEOUT_MS);
      // Coder's provisioner on a cancel: SIGINT, and Terraform stops, writing the state of what it did (executor_unix.go interruptCommandOnCancel);
      // one still running after the exit timeout is killed.
      let killTimer: NodeJS.Timeout | undefined;
      let killed = false;
      const interrupt = () => {
        applying.kill('SIGINT');
        if (this.exitTimeoutMs === undefined) return;
        killTimer = setTimeout(() => {
          killed = true;
          applying.kill('SIGKILL');
        }, this.exitTimeoutMs);
      };
      if (req.interrupted?.aborted) interrupt();
      req.interrupted?.addEventListener('abort', interrupt, { once: true });
      const apply = await applying.finally(() => {
        clearTimeout(killTimer);
        req.interrupted?.removeEventListener('abort', interrupt);
      });
      logs.push(...toLines(apply.all ?? '', stage));
      const written = await readFile(stateFile).catch(() => req.state);
      await this.recordLosses(pvcsBefore, req, ctx.transition === 'delete');
      const failed = apply.exitCode !== 0 || apply.timedOut || killed;
      const error = apply.timedOut
        ? 'terraform apply timed out'
        : killed
          ? `terraform killed: still running ${this.exitTimeoutMs} ms after the cancel's interrupt (the exit timeout)`
          : firstError(apply.all ?? '');
      return { state: written, logs, ...(failed ? { error } : {}) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private pvcsInState(state: Buffer): { namespace: string; name: string; uid: string }[] {
    if (state.length === 0) return [];
    const out: { namespace: string; name: string; uid: string }[] = [];
    for (const r of parseState(state, '').resources) {
      if (r.mode !== 'managed') continue;
      for (const i of r.instances) {
        const id = identityFromAttributes(r.type, i.attributes);
        const uid = (i.attributes.metadata as { uid?: string }[] | undefined)?.[0]?.uid;
        if (id?.kind === PVC && uid) out.push({ namespace: id.namespace, name: id.name, uid });
      }
    }
    return out;
  }

  /** A PVC the build's prior state held that is gone (or has another uid) after a non-delete build is a lost home. */
  private async recordLosses(before: { namespace: string; name: string; uid: string }[], req: ProvisionRequest, workspaceDelete: boolean): Promise<void> {
    for (const pvc of before) {
      const now = await this.client.get(PVC, pvc.namespace, pvc.name);
      const gone = !now || now.uid !== pvc.uid || now.deletionTimestamp !== undefined;
      if (gone && !workspaceDelete && !this.cluster.losses.some((l) => l.oldUid === pvc.uid)) {
        this.cluster.losses.push({ workspace: req.ctx.workspaceId, namespace: pvc.namespace, name: pvc.name, oldUid: pvc.uid, buildId: req.buildId });
      }
    }
    await this.refresh();
  }

  async close(): Promise<void> {
    await this.local?.stop();
    await rm(this.workDir, { recursive: true, force: true });
  }
}
