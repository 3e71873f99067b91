import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { freeLoopbackPort } from '../free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiServerCerts } from './certs';
import { KubeClient } from './client';
import { writeKubeconfig, type KubeConnection } from './kubeconfig';
import { realStackTools, type RealStackTools } from './tools';

export interface LocalKubeApi {
  /** A kubeconfig for this server (token user); what KUBE_CONFIG_PATH points at. */
  kubeconfigPath: string;
  connection: KubeConnection;
  client: KubeClient;
  /** Where the certificates, data and logs live; removed by stop(). */
  dir: string;
  stop(): Promise<void>;
}

export interface StartLocalKubeApiOptions {
  tools?: RealStackTools;
  readyTimeoutMs?: number;
}

function launch(binary: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    return spawn(binary, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
}

function logTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-8).join('\n');
  } catch {
    return '(no log)';
  }
}

async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts etcd and kube-apiserver on loopback (API objects only: no kubelet, scheduler or
 * controllers, so PVCs stay Pending and Deployments get no pods), with a throwaway CA and a
 * static admin token, and waits until /readyz answers ok. stop() ends both and removes every file;
 * a SIGINT or SIGTERM to this process stops them too.
 */
export async function startLocalKubeApi(opts: StartLocalKubeApiOptions = {}): Promise<LocalKubeApi> {
  const tools = opts.tools ?? realStackTools();
  const dir = await mkdtemp(join(tmpdir(), 'wsmigrate-kube-'));
  const children: ChildProcess[] = [];
  let stopped = false;

  const killNow = (): void => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  // Bound per signal: a handler is called without arguments when someone emits the event by hand.
  const handlerFor = (signal: NodeJS.Signals) => (): void => {
    // Someone else handles the signal (the CLI's shutdown): it will call stop(), which stops cleanly.
    if (process.listenerCount(signal) > 1) return;
    killNow();
    unlisten();
    rmSync(dir, { recursive: true, force: true });
    // Nobody else listens: end the process as the default handler would have.
    process.kill(process.pid, signal);
  };
  const onSigint = handlerFor('SIGINT');
  const onSigterm = handlerFor('SIGTERM');
  const unlisten = (): void => {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigterm);
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unlisten();
    process.removeListener('exit', onExit);
    // The API server first: it holds connections to etcd.
    for (const c of [...children].reverse()) await stopProcess(c);
    await rm(dir, { recursive: true, force: true });
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  // A crash (uncaught exception, process.exit) must not orphan etcd and the API server.
  const onExit = (): void => {
    killNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);

  try {
    const certs = await generateApiServerCerts(dir);
    const token = randomBytes(24).toString('hex');
    await writeFile(join(dir, 'tokens.csv'), `${token},wsmigrate-admin,wsmigrate-admin,"system:masters"\n`, { mode: 0o600 });
    const [etcdPort, peerPort, apiPort] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];

    const etcdLog = join(dir, 'etcd.log');
    const etcd = launch(tools.etcd, [
      '--name=wsmigrate', `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`, `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=wsmigrate=http://127.0.0.1:${peerPort}`, '--log-level=warn',
    ], etcdLog);
    children.push(etcd);

    const apiLog = join(dir, 'kube-apiserver.log');
    const api = launch(tools.kubeApiserver, [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`, '--bind-address=127.0.0.1', `--secure-port=${apiPort}`,
      '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none',
      `--tls-cert-file=${certs.serverCert}`, `--tls-private-key-file=${certs.serverKey}`, `--client-ca-file=${certs.caCert}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`, '--authorization-mode=AlwaysAllow',
      `--service-account-key-file=${certs.serviceAccountKey}`, `--service-account-signing-key-file=${certs.serviceAccountKey}`,
      '--service-account-issuer=https://kubernetes.default.svc', '--service-cluster-ip-range=10.0.0.0/24',
      '--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection', '--v=0',
    ], apiLog);
    children.push(api);

    const connection: KubeConnection = { server: `https://127.0.0.1:${apiPort}`, caCert: await readFile(certs.caCert, 'utf8'), token };
    const client = new KubeClient(connection);
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
    while (!(await client.ready())) {
      for (const [name, child, log] of [['etcd', etcd, etcdLog], ['kube-apiserver', api, apiLog]] as const) {
        if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} while starting:\n${logTail(log)}`);
      }
      if (Date.now() > deadline) throw new Error(`kube-apiserver was not ready after ${opts.readyTimeoutMs ?? 60_000} ms:\n${logTail(apiLog)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, connection);
    return { kubeconfigPath, connection, client, dir, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
