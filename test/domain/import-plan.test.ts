import execa from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importArgs, ImportPlanError, planImports, shellQuote, stateRmArgs } from '../../src/domain/import-plan';

const fixture = (name: string): string => readFileSync(join(__dirname, '../fixtures/state', name), 'utf8');

const state = (resources: unknown[]): string => JSON.stringify({ version: 4, serial: 1, lineage: 'l', resources });
const managed = (type: string, name: string, instances: unknown[], module?: string) => ({ ...(module ? { module } : {}), mode: 'managed', type, name, instances });

/** What a POSIX shell makes of a display line: the argv Terraform would get. */
async function argvOfShellLine(line: string): Promise<string[]> {
  const script = line.replace(/^terraform /, `printf '%s\\0' `);
  const { stdout } = await execa('sh', ['-c', script], { stripFinalNewline: false });
  return stdout.split('\0').slice(0, -1);
}

describe('planImports', () => {
  it('by default plans only DIFFERENT types: state rm of the old address, import of the replacement with attributes.id', () => {
    const steps = planImports(fixture('different-type.tfstate'));
    expect(steps.map((s) => [s.oldAddress, s.newAddress, s.importId])).toEqual([
      ['kubernetes_cron_job.backup', 'kubernetes_cron_job_v1.backup', 'coder/backup'],
      ['kubernetes_ingress.web[0]', 'kubernetes_ingress_v1.web[0]', 'coder/web'],
    ]);
    expect(steps[1].stateRmArgs).toEqual(['state', 'rm', '-state=terraform.tfstate', 'kubernetes_ingress.web[0]']);
    expect(steps[1].importArgs).toEqual(['import', '-input=false', '-state=terraform.tfstate', 'kubernetes_ingress_v1.web[0]', 'coder/web']);
  });

  it("with which 'all' also plans SAME types, the runbook's own path", () => {
    const steps = planImports(fixture('count.tfstate'), { which: 'all', stateFile: 'alice-dev.tfstate', vars: { use_kubeconfig: 'true', namespace: 'coder' } });
    expect(steps.map((s) => s.newAddress)).toEqual(['kubernetes_persistent_volume_claim_v1.home[0]', 'kubernetes_deployment_v1.main[0]']);
    expect(steps[0].shell).toEqual([
      "terraform state rm -state=alice-dev.tfstate 'kubernetes_persistent_volume_claim.home[0]'",
      "terraform import -input=false -state=alice-dev.tfstate -var use_kubeconfig=true -var namespace=coder 'kubernetes_persistent_volume_claim_v1.home[0]' coder/coder-alice-dev-home",
    ]);
    expect(planImports(fixture('count.tfstate'))).toEqual([]);
  });

  it('keeps module prefixes and quotes for_each keys in the new address', () => {
    const modules = planImports(fixture('modules.tfstate'), { which: 'all' });
    expect(modules.map((s) => s.newAddress)).toEqual([
      'kubernetes_namespace_v1.ns',
      'module.workspace[1].kubernetes_deployment_v1.main[0]',
      'module.storage["k"].module.inner.kubernetes_persistent_volume_claim_v1.home',
      'module.kubernetes_secret.kubernetes_secret_v1.kubernetes_secret',
    ]);
    expect(modules[0].importId).toBe('coder-ws');
    const forEach = planImports(fixture('for-each.tfstate'), { which: 'all' });
    expect(forEach.map((s) => s.newAddress)).toContain('kubernetes_config_map_v1.settings["with \\"quote\\" & <tag>"]');
  });

  it('gives shell lines that a POSIX shell turns back into exactly the args', async () => {
    const steps = [
      ...planImports(fixture('modules.tfstate'), { which: 'all', vars: { "it's": 'a b' } }),
      ...planImports(fixture('for-each.tfstate'), { which: 'all', stateFile: 'my state.tfstate' }),
    ];
    for (const step of steps) {
      expect(await argvOfShellLine(step.shell[0])).toEqual(step.stateRmArgs);
      expect(await argvOfShellLine(step.shell[1])).toEqual(step.importArgs);
    }
    expect(shellQuote('module.x[0].kubernetes_deployment_v1.main["k"]')).toBe(`'module.x[0].kubernetes_deployment_v1.main["k"]'`);
    expect(shellQuote("o'neil")).toBe(`'o'\\''neil'`);
  });

  it('maps the HPA to _v2 and skips data sources, NEVER_TOUCH types, versioned types and deposed objects', () => {
    const steps = planImports(
      state([
        managed('kubernetes_horizontal_pod_autoscaler', 'h', [
          { index_key: 'a', schema_version: 0, attributes: { id: 'coder/h' } },
          { index_key: 'a', deposed: '0badf00d', schema_version: 0, attributes: { id: 'coder/h-old' } },
        ]),
        { mode: 'data', type: 'kubernetes_ingress', name: 'd', instances: [{ schema_version: 0, attributes: { id: 'coder/d' } }] },
        managed('kubernetes_manifest', 'm', [{ schema_version: 1, attributes: { id: 'x' } }]),
        managed('kubernetes_ingress_v1', 'done', [{ schema_version: 0, attributes: { id: 'coder/done' } }]),
      ]),
      { which: 'all' },
    );
    expect(steps.map((s) => [s.oldAddress, s.newAddress, s.importId])).toEqual([
      ['kubernetes_horizontal_pod_autoscaler.h["a"]', 'kubernetes_horizontal_pod_autoscaler_v2.h["a"]', 'coder/h'],
    ]);
  });

  it('names every instance whose attributes.id is missing and says how to find the ID', () => {
    const text = state([
      managed('kubernetes_cron_job', 'c', [{ index_key: 0, schema_version: 1, attributes: {} }, { index_key: 1, schema_version: 1, attributes: { id: 'coder/c' } }], 'module.m[0]'),
      managed('kubernetes_csi_driver', 'd', [{ schema_version: 0 }]),
    ]);
    expect(() => planImports(text)).toThrow(ImportPlanError);
    expect(() => planImports(text)).toThrow(/module\.m\[0\]\.kubernetes_cron_job\.c\[0\], kubernetes_csi_driver\.d have no attributes\.id.*namespace\/name/);
  });

  it('refuses what is not a v4 state, saying why', () => {
    expect(() => planImports(fixture('v3.tfstate'))).toThrow(/Cannot plan imports: .*format version 3/);
  });

  it('builds the same argument shapes for callers that run them', () => {
    expect(stateRmArgs('/tmp/s', ['a.b', 'c.d'], ['-backup=/tmp/b'])).toEqual(['state', 'rm', '-state=/tmp/s', '-backup=/tmp/b', 'a.b', 'c.d']);
    expect(importArgs('/tmp/s', 'a.b', 'ns/n', { k: 'v=w' })).toEqual(['import', '-input=false', '-state=/tmp/s', '-var', 'k=v=w', 'a.b', 'ns/n']);
  });
});
