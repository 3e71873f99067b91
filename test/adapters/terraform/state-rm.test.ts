import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TerraformCommandError } from '../../../src/adapters/terraform/run';
import { stateList } from '../../../src/adapters/terraform/state-list';
import { stateRm } from '../../../src/adapters/terraform/state-rm';
import { withScratchDir } from '../../../src/adapters/terraform/scratch-dir';

const fixture = (name: string): string => readFileSync(join(__dirname, '../../fixtures/state', name), 'utf8');

async function failure(work: Promise<unknown>): Promise<TerraformCommandError> {
  try {
    await work;
  } catch (e) {
    if (e instanceof TerraformCommandError) return e;
    throw e;
  }
  throw new Error('expected a TerraformCommandError');
}

describe('terraform state rm (real Terraform)', () => {
  it('forgets the given instances, bumps the serial, keeps the lineage and leaves the input alone', async () => {
    const input = fixture('count.tfstate');
    const output = await stateRm(input, ['kubernetes_deployment.main[0]', 'kubernetes_persistent_volume_claim.home[0]']);
    expect(await stateList(output)).toEqual(['data.coder_workspace.me', 'coder_agent.main']);
    const before = JSON.parse(input);
    const after = JSON.parse(output);
    expect(after.serial).toBe(before.serial + 1);
    expect(after.lineage).toBe(before.lineage);
    expect(input).toBe(fixture('count.tfstate'));
  });

  it('forgets the deposed object of an instance with it', async () => {
    const output = await stateRm(fixture('deposed-tainted.tfstate'), ['kubernetes_deployment.main[0]']);
    const deployment = JSON.parse(output).resources.find((r: { type: string }) => r.type === 'kubernetes_deployment');
    expect(deployment.instances.map((i: { index_key: number; deposed?: string }) => [i.index_key, i.deposed])).toEqual([[1, undefined]]);
  });

  it('removes module and for_each instances addressed with their keys', async () => {
    const output = await stateRm(fixture('modules.tfstate'), ['module.storage["k"].module.inner.kubernetes_persistent_volume_claim.home', 'module.workspace[1]']);
    expect(await stateList(output)).toEqual(['kubernetes_namespace.ns', 'module.kubernetes_secret.kubernetes_secret.kubernetes_secret']);
  });

  it('fails naming the subcommand and the address when nothing matches', async () => {
    const error = await failure(stateRm(fixture('count.tfstate'), ['kubernetes_deployment.missing']));
    expect(error.subcommand).toBe('state rm');
    // Warnings before the error (a missing CLI config file, for one) are left out.
    expect(error.message).toMatch(/^terraform state rm of kubernetes_deployment\.missing failed \(exit 1\): Error: Invalid target address\n/);
  });

  it('reports a state Terraform cannot read without echoing its content', async () => {
    const error = await failure(stateList(fixture('bad-json.tfstate')));
    expect(error.message).toMatch(/^terraform state list of the state file failed \(exit 1\): [\s\S]*could not be parsed as JSON/);
    expect(error.message).not.toMatch(/secret-token|coder-alice/);
  });
});

/** `work` with WSMIGRATE_TERRAFORM_BIN as given, put back after. */
async function withEnv<T>(env: { WSMIGRATE_TERRAFORM_BIN?: string }, work: () => Promise<T>): Promise<T> {
  const before = { WSMIGRATE_TERRAFORM_BIN: process.env.WSMIGRATE_TERRAFORM_BIN };
  Object.assign(process.env, env);
  try {
    return await work();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('what Terraform leaves behind, and how it ends', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tf-leftovers-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('no copy of the state stays on disk: the scratch dir with the state (and Terraform\'s backup of it) is removed, after a failure too', async () => {
    const seen: string[] = [];
    await withScratchDir('state-rm', async (d) => {
      seen.push(d);
      writeFileSync(join(d, 'in.tfstate'), fixture('count.tfstate'));
    });
    await expect(
      withScratchDir('state-rm', async (d) => {
        seen.push(d);
        writeFileSync(join(d, 'in.tfstate'), fixture('count.tfstate'));
        throw new Error('terraform failed');
      }),
    ).rejects.toThrow('terraform failed');
    expect(seen).toHaveLength(2);
    for (const d of seen) expect(existsSync(d)).toBe(false);
  });

  it('a Terraform that crashes (exit 2, a Go panic) is a failure naming its exit code, never taken for done', async () => {
    const crashing = join(dir, 'terraform');
    writeFileSync(crashing, '#!/bin/sh\necho "panic: runtime error: invalid memory address" >&2\nexit 2\n');
    chmodSync(crashing, 0o755);
    const error = await failure(withEnv({ WSMIGRATE_TERRAFORM_BIN: crashing }, () => stateRm(fixture('count.tfstate'), ['kubernetes_deployment.main[0]'])));
    expect(error.message).toMatch(/^terraform state rm of kubernetes_deployment\.main\[0\] failed \(exit 2\): panic: runtime error/);
  });
});
