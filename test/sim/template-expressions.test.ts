import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion, waitForBuild } from './helpers';

/**
 * The shapes public Coder templates are written in: names built with lower() from the owner
 * fields older coder providers kept on coder_workspace, sizes and counts from coder_parameter
 * defaults, conditionals. The simulator built none of them before (it read bare traversals only).
 */
const TEMPLATE = `
terraform {
  required_providers {
    coder      = { source = "coder/coder" }
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}
variable "workspaces_namespace" {
  type    = string
  default = "devs"
}
data "coder_workspace" "me" {}
data "coder_parameter" "disk_size" {
  name    = "Disk size"
  type    = "number"
  default = 7
}
data "coder_parameter" "with_ide" {
  name    = "IDE"
  type    = "bool"
  default = false
}
resource "coder_agent" "main" {
  os   = "linux"
  arch = "amd64"
}
resource "coder_app" "ide" {
  count    = data.coder_parameter.with_ide.value ? 1 : 0
  agent_id = coder_agent.main.id
  slug     = "ide"
}
resource "kubernetes_persistent_volume_claim" "home-directory" {
  metadata {
    name      = "home-coder-\${lower(data.coder_workspace.me.owner)}-\${lower(data.coder_workspace.me.name)}"
    namespace = var.workspaces_namespace
  }
  spec {
    access_modes = ["ReadWriteOnce"]
    resources {
      requests = {
        storage = "\${data.coder_parameter.disk_size.value}Gi"
      }
    }
  }
}
resource "kubernetes_pod" "main" {
  count = data.coder_workspace.me.start_count
  metadata {
    name      = "coder-\${lower(data.coder_workspace.me.owner)}-\${lower(data.coder_workspace.me.name)}"
    namespace = var.workspaces_namespace
  }
  spec {
    container {
      name  = "dev"
      image = "codercom/enterprise-base:ubuntu"
    }
    volume {
      name = "home"
      persistent_volume_claim {
        claim_name = kubernetes_persistent_volume_claim.home-directory.metadata.0.name
      }
    }
  }
}
`;

describe('simulator: a template written as public Coder templates are', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 0, seed: 71, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  test('builds: names from lower(owner)/lower(name), size from a parameter default, counts from a conditional', async () => {
    expect((await pushTemplateVersion(sim, TEMPLATE, { promote: true })).job.status).toBe('succeeded');
    const res = await api<{ id: string; latest_build: { id: string } }>(sim, 'POST', '/users/alice/workspaces', { json: { name: 'My-WS', template_id: sim.template.id } });
    expect(res.status).toBe(201);
    const build = await waitForBuild(sim, res.body.latest_build.id);
    expect(build.build.job).toMatchObject({ status: 'succeeded' });
    const pvc = sim.cluster.pvc('devs', 'home-coder-alice-my-ws');
    expect(pvc).toBeDefined();
    expect(sim.cluster.objects().some((o) => o.kind === 'Pod' && o.name === 'coder-alice-my-ws')).toBe(true);
    const state = JSON.parse(sim.stateOf(res.body.id)) as { resources: { type: string; instances: { attributes: Record<string, unknown> }[] }[] };
    expect(state.resources.find((r) => r.type === 'coder_app')).toBeUndefined();
    expect(JSON.stringify(state.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim')?.instances[0]?.attributes.spec)).toContain('"storage":"7Gi"');
  });
});
