import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toolsCacheDir } from '../../config/tools';

/** Pinned with scripts/bootstrap-tools.sh (`--real-stack`), which builds exactly these. */
export const KUBERNETES_VERSION = '1.34.4';
export const ETCD_VERSION = '3.6.4';
export const KUBE_PROVIDER_MODULE_VERSION = 'v1.13.4-0.20260821094251-3a33fb6cc605';
/** The version the filesystem mirror offers the kubernetes provider build as (it is main after 3.2.1). */
export const KUBE_PROVIDER_MIRROR_VERSION = '3.2.2';
export const CODER_PROVIDER_VERSION = '2.20.0';

export interface RealStackTools {
  kubeApiserver: string;
  etcd: string;
  /** A Terraform `filesystem_mirror` holding hashicorp/kubernetes and coder/coder. */
  providerMirror: string;
}

export function providerMirrorDir(): string {
  return process.env.WSMIGRATE_PROVIDER_MIRROR ?? join(dirname(toolsCacheDir()), 'terraform-mirror');
}

function mirroredProvider(namespace: string, type: string, version: string): string {
  return join(providerMirrorDir(), 'registry.terraform.io', namespace, type, version, 'linux_amd64', `terraform-provider-${type}_v${version}`);
}

/** The real-stack tools that are not built yet, as paths; empty when everything is there. */
export function missingRealStackTools(): string[] {
  const bin = toolsCacheDir();
  const wanted = [
    join(bin, `kube-apiserver-${KUBERNETES_VERSION}`, 'kube-apiserver'),
    join(bin, `etcd-${ETCD_VERSION}`, 'etcd'),
    mirroredProvider('hashicorp', 'kubernetes', KUBE_PROVIDER_MIRROR_VERSION),
    mirroredProvider('coder', 'coder', CODER_PROVIDER_VERSION),
  ];
  return wanted.filter((p) => !existsSync(p));
}

/** Paths of the real-stack tools, or an error saying how to build them. */
export function realStackTools(): RealStackTools {
  const missing = missingRealStackTools();
  if (missing.length) {
    throw new Error(
      `The real Kubernetes stack is not built: missing ${missing.join(', ')}. ` +
        "Run 'bash scripts/bootstrap-tools.sh --real-stack' (about 20 minutes the first time on 2 cores, then cached).",
    );
  }
  const bin = toolsCacheDir();
  return {
    kubeApiserver: join(bin, `kube-apiserver-${KUBERNETES_VERSION}`, 'kube-apiserver'),
    etcd: join(bin, `etcd-${ETCD_VERSION}`, 'etcd'),
    providerMirror: providerMirrorDir(),
  };
}
