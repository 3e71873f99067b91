import type { ActivityDeps } from '../activities';
import { CoderClient } from '../adapters/coder';
import type { CoderCallObserver } from '../adapters/coder/call-observer';
import { existsSync } from 'node:fs';
import { providerMirrorDir } from '../adapters/kube/tools';
import { openBlobStore } from '../adapters/open-blob-store';
import { notifierFromConfig } from '../adapters/notify/from-config';
import { createKubeImporter } from '../adapters/terraform/kube-importer';
import { templateVariablesFile } from '../adapters/template-variables-file';
import { blobStoreSettings, requireCoder, type WsmigrateConfig } from '../config/env';

/** The production adapters for the activities, from configuration. Tests build their own with the simulator. */
export function activityDepsFromConfig(
  cfg: WsmigrateConfig,
  overrides: Partial<ActivityDeps> = {},
  hooks: { observeCoderCall?: CoderCallObserver } = {},
): ActivityDeps {
  const coder = overrides.coder ?? (() => {
    const c = requireCoder(cfg);
    return new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-worker', observer: hooks.observeCoderCall });
  })();
  return {
    coder,
    blobs: overrides.blobs ?? openBlobStore(blobStoreSettings(cfg)),
    notifier: overrides.notifier ?? notifierFromConfig(cfg).notifier,
    ...(overrides.importer ? { importer: overrides.importer } : cfg.kubeconfig ? { importer: importerFromConfig(cfg.kubeconfig) } : {}),
    ...(overrides.metrics ? { metrics: overrides.metrics } : {}),
    ...(overrides.templateVariables ? { templateVariables: overrides.templateVariables } : cfg.templateVariablesFile ? { templateVariables: templateVariablesFromConfig(cfg.templateVariablesFile) } : {}),
  };
}

/** Checked at start, read again at each push (values added meanwhile are seen without a restart). */
function templateVariablesFromConfig(file: string) {
  if (!existsSync(file)) {
    throw new Error(`WSMIGRATE_TEMPLATE_VARIABLES points at ${file}, which does not exist; set it to a JSON file {"<organization>/<template>": {"NAME": "VALUE"}}, or unset it.`);
  }
  return templateVariablesFile(file);
}

/** `terraform import` against the configured cluster; providers from the project's mirror when it is built, else Terraform's own config. */
function importerFromConfig(kubeconfig: string) {
  if (!existsSync(kubeconfig)) {
    throw new Error(`WSMIGRATE_KUBECONFIG points at ${kubeconfig}, which does not exist; set it to the kubeconfig of the workspaces' cluster, or unset it to refuse the import strategy.`);
  }
  const mirror = providerMirrorDir();
  return createKubeImporter({ kubeconfigPath: kubeconfig, ...(existsSync(mirror) ? { providerMirror: mirror } : {}) });
}
