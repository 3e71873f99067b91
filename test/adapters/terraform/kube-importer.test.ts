import { startLocalKubeApi, type LocalKubeApi } from '../../../src/adapters/kube';
import { createKubeImporter } from '../../../src/adapters/terraform/kube-importer';
import { providerMirrorDir } from '../../../src/adapters/kube/tools';
import { planImports } from '../../../src/domain/import-plan';
import { describeRealStack } from '../../harness/real-stack';

jest.setTimeout(300_000);

const PROVIDER = 'provider["registry.terraform.io/hashicorp/kubernetes"]';

/** The target template version: the DIFFERENT pairs written as their _v1 types. */
const MAIN_TF = `terraform {
  required_providers {
    kubernetes = {
      source = "hashicorp/kubernetes"
    }
  }
}

provider "kubernetes" {}

resource "kubernetes_ingress_v1" "web" {
  metadata {
    name      = "web"
    namespace = "default"
  }
  spec {
    default_backend {
      service {
        name = "web"
        port {
          number = 80
        }
      }
    }
  }
}

resource "kubernetes_cron_job_v1" "nightly" {
  metadata {
    name      = "nightly"
    namespace = "default"
  }
  spec {
    schedule = "0 3 * * *"
    job_template {
      metadata {}
      spec {
        template {
          metadata {}
          spec {
            restart_policy = "OnFailure"
            container {
              name  = "backup"
              image = "busybox"
            }
          }
        }
      }
    }
  }
}
`;

/**
 * A state written long ago by the deprecated types (schema_version 1 for both, as their old
 * implementations have). It holds no uid, so any uid in the result was read from the API server.
 */
function oldState(): string {
  const entry = (type: string, name: string) => ({
    mode: 'managed',
    type,
    name,
    provider: PROVIDER,
    instances: [{ schema_version: 1, attributes: { id: `default/${name}`, metadata: [{ name, namespace: 'default' }] }, sensitive_attributes: [] }],
  });
  return JSON.stringify({
    version: 4,
    terraform_version: '1.5.7',
    serial: 12,
    lineage: 'c0ffee00-0000-4000-8000-000000000001',
    outputs: {},
    resources: [entry('kubernetes_ingress', 'web'), entry('kubernetes_cron_job', 'nightly')],
    check_results: null,
  });
}

describeRealStack('the Terraform importer against a real API server', () => {
  let kube: LocalKubeApi;

  beforeAll(async () => {
    kube = await startLocalKubeApi();
  });
  afterAll(async () => kube?.stop());

  it('moves kubernetes_ingress -> kubernetes_ingress_v1 and kubernetes_cron_job -> kubernetes_cron_job_v1 with the objects\' uids unchanged', async () => {
    const ingress = await kube.client.create('Ingress', 'default', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web' },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    });
    const cron = await kube.client.create('CronJob', 'default', {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'backup', image: 'busybox' }] } } } },
      },
    });
    const stateText = oldState();
    const steps = planImports(stateText, { which: 'different' });
    expect(steps.map((s) => `${s.oldAddress} -> ${s.newAddress} (${s.importId})`).sort()).toEqual([
      'kubernetes_cron_job.nightly -> kubernetes_cron_job_v1.nightly (default/nightly)',
      'kubernetes_ingress.web -> kubernetes_ingress_v1.web (default/web)',
    ]);

    const importer = createKubeImporter({ kubeconfigPath: kube.kubeconfigPath, providerMirror: providerMirrorDir() });
    const out = JSON.parse(await importer.importInstances({ stateText, steps, templateFiles: [{ path: 'main.tf', content: MAIN_TF }] })) as {
      lineage: string;
      serial: number;
      resources: { type: string; name: string; instances: { attributes: { metadata: { uid: string }[] } }[] }[];
    };
    expect(out.resources.map((r) => r.type).sort()).toEqual(['kubernetes_cron_job_v1', 'kubernetes_ingress_v1']);
    const uidOf = (type: string) => out.resources.find((r) => r.type === type)?.instances[0]?.attributes.metadata[0]?.uid;
    expect(uidOf('kubernetes_ingress_v1')).toBe(ingress.uid);
    expect(uidOf('kubernetes_cron_job_v1')).toBe(cron.uid);
    expect(out.lineage).toBe('c0ffee00-0000-4000-8000-000000000001');
    expect(out.serial).toBeGreaterThan(12);
    // The objects themselves were read, never re-created.
    expect((await kube.client.get('Ingress', 'default', 'web'))?.uid).toBe(ingress.uid);
    expect((await kube.client.get('CronJob', 'default', 'nightly'))?.uid).toBe(cron.uid);
  });

  it('a step whose object does not exist fails naming the step, and returns nothing', async () => {
    const stateText = oldState().replace(/default\/web/g, 'default/ghost').replace(/"name":"web"/g, '"name":"ghost"');
    const steps = planImports(stateText, { which: 'different' }).filter((s) => s.oldAddress.startsWith('kubernetes_ingress'));
    const importer = createKubeImporter({ kubeconfigPath: kube.kubeconfigPath, providerMirror: providerMirrorDir() });
    const mainTf = MAIN_TF.replace('resource "kubernetes_ingress_v1" "web"', 'resource "kubernetes_ingress_v1" "ghost"').replace('name      = "web"', 'name      = "ghost"');
    await expect(importer.importInstances({ stateText, steps, templateFiles: [{ path: 'main.tf', content: mainTf }] })).rejects.toThrow(
      /kubernetes_ingress\.ghost -> kubernetes_ingress_v1\.ghost\) failed at import/,
    );
  });
});

describe('the Terraform importer, before it runs anything', () => {
  it('refuses a template file whose path leaves the template directory, writing nothing outside it', async () => {
    const importer = createKubeImporter({ kubeconfigPath: '/nonexistent/kubeconfig' });
    const [step] = planImports(JSON.stringify({ version: 4, terraform_version: '1.8.5', serial: 1, lineage: 'l', outputs: {}, resources: [{ mode: 'managed', type: 'kubernetes_cron_job', name: 'nightly', provider: PROVIDER, instances: [{ schema_version: 1, attributes: { id: 'default/nightly' } }] }] }), { which: 'different' });
    expect(step).toBeDefined();
    await expect(importer.importInstances({ stateText: '{}', steps: [step], templateFiles: [{ path: '../escape.tf', content: 'resource "x" "y" {}' }] })).rejects.toThrow(
      'Template file path "../escape.tf" leaves the template directory; refusing to write it.',
    );
  });
});
