import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRewriteTemplateSource } from '../../src/activities/rewrite-template-source';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { sha256Hex } from '../../src/adapters/hash';
import { readTar } from '../../src/adapters/template-tar';
import { FailureType } from '../../src/domain/failure-types';
import type { TemplateVariableValues } from '../../src/ports/template-variables';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, latestBuildId, pushTemplateVersion, putState, startBuild } from '../sim/helpers';

/**
 * The template run's rewrite: the active version's source with the _v1 types and guard blocks,
 * every other file as it was, stored for the push. What it refuses stops the run before any gate:
 * a source it cannot read, and values for sensitive variables that would move the home claims.
 */
describe('rewriteTemplateSource', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-rewrite-src-'));
    blobs = createFileBlobStore({ dir });
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let coder: CoderClient;
  const rewriteWith = (templateVariables?: TemplateVariableValues) =>
    stepsOf({ coder: new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } }), blobs, notifier: { notify: async () => undefined }, ...(templateVariables ? { templateVariables } : {}) }, { rewrite: makeRewriteTemplateSource }).rewrite;
  const rewrite = (versionId: string, more: { allowRemoteModules?: boolean; zeroTouch?: boolean } = {}) => rewriteWith()({ subject: 'template coder/k8s-dev', versionId, renameDifferent: false, ...more });
  const filesOf = async (ref: string) => new Map((await readTar(await blobs.get(ref))).map((f) => [f.path, f.bytes.toString('utf8')]));

  it('stores the rewritten archive, named by its hash: the _v1 types and guard blocks, every other file byte for byte', async () => {
    const readme = '# k8s-dev\nNot Terraform: kept as it is.\n';
    const version = (await pushTemplateVersion(sim, [
      { name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF },
      { name: 'README.md', content: readme },
    ])).id;
    const r = await rewrite(version);
    // Every reference renamed (the claim, the deployment, and the claim's two uses), where it was.
    expect(r).toMatchObject({ unchanged: false, renamedCount: 4, refused: [], guards: ['kubernetes_persistent_volume_claim.home'], protectedResources: ['kubernetes_persistent_volume_claim.home'] });
    expect(r.renamed.map((x) => [x.file, x.line, x.from, x.to])).toEqual([
      ['main.tf', 44, 'kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1'],
      ['main.tf', 70, 'kubernetes_deployment', 'kubernetes_deployment_v1'],
      ['main.tf', 73, 'kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1'],
      ['main.tf', 131, 'kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1'],
    ]);
    expect(r.zeroTouch).toBeUndefined();
    const tar = await blobs.get(r.source!.ref);
    expect(r.versionName).toBe(`wsmigrate-${sha256Hex(tar).slice(0, 12)}`);
    const files = await filesOf(r.source!.ref);
    expect(files.get('README.md')).toBe(readme);
    expect(files.get('main.tf')).toContain('resource "kubernetes_persistent_volume_claim_v1" "home"');
    expect(files.get('main.tf')).not.toMatch(/resource "kubernetes_persistent_volume_claim" /);
    expect(files.get('wsmigrate_guards.tf')).toMatch(/removed \{\s*from\s*=\s*kubernetes_persistent_volume_claim\.home/);
    expect((await readTar(tar)).map((f) => f.path).sort()).toEqual(['README.md', 'main.tf', 'wsmigrate_guards.tf']);
    expect((await blobs.list()).find((b) => b.ref === r.source!.ref)?.records).toEqual([expect.objectContaining({ kind: 'template-source', label: 'template coder/k8s-dev' })]);
  });

  it('a version already on the _v1 types is unchanged: nothing stored; zero-touch reports each type it points at', async () => {
    const before = (await blobs.list()).length;
    expect(await rewrite((await pushTemplateVersion(sim, fixtureSource('template-v1'))).id)).toMatchObject({ source: null, versionName: '', unchanged: true, renamedCount: 0 });
    expect((await blobs.list()).length).toBe(before);
    const zt = await rewrite(sim.template.originalVersionId, { zeroTouch: true });
    expect(zt.zeroTouch).toEqual([
      { from: 'kubernetes_persistent_volume_claim.home', to: 'kubernetes_persistent_volume_claim_v1.home' },
      { from: 'kubernetes_deployment.main', to: 'kubernetes_deployment_v1.main[0]' },
    ]);
    expect(zt.guards).toEqual([]);
  });

  it('refuses a source it cannot parse, and a module whose code is not in the template unless asked to leave it, saying what to do; nothing stored', async () => {
    const before = (await blobs.list()).length;
    const broken = (await pushTemplateVersion(sim, `${K8S_TEMPLATE_MAIN_TF}\nresource "kubernetes_secret" "x" {\n`)).id;
    await expect(rewrite(broken)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringMatching(/^rewrite template refused for template coder\/k8s-dev: main\.tf:\d+.*\. Fix the template source \(`wsmigrate template rewrite DIR` shows the same problem offline\), push it as a new version, then run again$/),
    });
    const remote = (await pushTemplateVersion(sim, `${K8S_TEMPLATE_MAIN_TF}\nmodule "extra" {\n  source = "git::https://deploy:hunter2@git.example.com/mods.git//k8s"\n}\n`)).id;
    const refused = (await rewrite(remote).catch((e: unknown) => e)) as { type: string; message: string };
    expect(refused.type).toBe(FailureType.refused);
    expect(refused.message).toMatch(/^rewrite template refused for template coder\/k8s-dev: the template calls 1 module\(s\) whose code is not in the template: module\.extra \(main\.tf:\d+, source = ".*"\)/);
    expect(refused.message).toContain('. Nothing was pushed. Or, to rewrite the rest and leave those modules as they are, run again without --strict-modules');
    expect(refused.message).not.toContain('hunter2');
    expect((await blobs.list()).length).toBe(before);
    expect(await rewrite(remote, { allowRemoteModules: true })).toMatchObject({ unchanged: false, renamedCount: 4 });
  });

  it('refuses a version whose lock file keeps hashicorp/kubernetes before the _v1 types (2.7.0), naming it; nothing stored', async () => {
    const before = (await blobs.list()).length;
    const lock = 'provider "registry.terraform.io/hashicorp/kubernetes" {\n  version     = "2.6.1"\n  constraints = "~> 2.6"\n}\n';
    const pinned = (await pushTemplateVersion(sim, [{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }, { name: '.terraform.lock.hcl', content: lock }])).id;
    await expect(rewrite(pinned)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringContaining("rewrite template refused for template coder/k8s-dev: .terraform.lock.hcl:2: the template's lock file selects hashicorp/kubernetes 2.6.1, which has no _v1 types"),
    });
    expect((await blobs.list()).length).toBe(before);
  });

  it('a source Coder fails to give (500 after the retries) fails the step for a retry, not a refusal', async () => {
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/templateversions/${sim.template.originalVersionId}`] });
    try {
      await expect(rewriteWith()({ subject: 'template coder/k8s-dev', versionId: sim.template.originalVersionId, renameDifferent: false })).rejects.toMatchObject({ type: 'CoderApi.server', nonRetryable: false });
    } finally {
      sim.setFaults(undefined);
    }
  });

  it('refuses a version whose file is not a template archive, naming the version', async () => {
    const file = await coder.uploadFile(Buffer.from('this is not a tar archive, nor gzip'));
    const created = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash });
    await coder.waitForTemplateVersion(created.id);
    await expect(rewrite(created.id)).rejects.toMatchObject({
      type: FailureType.refused,
      message: expect.stringMatching(new RegExp(`^rewrite template refused for template coder/k8s-dev: .+ \\(template version ${created.id}\\)$`)),
    });
  });

  describe('before a push: the values the worker holds for sensitive variables', () => {
    const secret = 'wr0ng-suffix-9931';
    const withSensitiveName = K8S_TEMPLATE_MAIN_TF.replace('-home"', '-${var.home_suffix}"') + '\nvariable "home_suffix" {\n  type      = string\n  sensitive = true\n}\n';
    let active: string;
    beforeAll(async () => {
      // The active version names the home claim from a sensitive variable, pushed with the value "home"; a workspace is built on it.
      const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: withSensitiveName }]));
      active = (await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, user_variable_values: [{ name: 'home_suffix', value: 'home' }] })).id;
      expect((await coder.waitForTemplateVersion(active)).job.status).toBe('succeeded');
      const [onActive, older] = sim.workspaces();
      expect((await startBuild(sim, onActive.id, { transition: 'start', template_version_id: active })).job.status).toBe('succeeded');
      // Stopped on it, so Coder lists the other (running) one first.
      expect((await startBuild(sim, onActive.id, { transition: 'stop', template_version_id: active })).job.status).toBe('succeeded');
      // The other is still on the seeded version, whose state an older release named otherwise: not a sample of the active version.
      const olderBuild = await latestBuildId(sim, older.id);
      const legacy = (await api(sim, 'GET', `/workspacebuilds/${olderBuild}/state`)).text.replaceAll(`coder-${older.id}-home`, `coder-${older.id}-legacy`);
      expect((await putState(sim, olderBuild, legacy)).status).toBe(204);
    });
    const given = (values: Record<string, string> | undefined): TemplateVariableValues => ({ valuesFor: async () => values, whereFor: () => 'key "coder/k8s-dev" of /etc/wsmigrate/variables.json' });
    const rewriteToPush = (values: Record<string, string> | undefined) =>
      rewriteWith(given(values))({ subject: 'template coder/k8s-dev', versionId: active, renameDifferent: false, pushTo: { organization: 'coder', template: sim.template.name } });

    it('the value it was pushed with: rewritten and stored', async () => {
      expect(await rewriteToPush({ home_suffix: 'home' })).toMatchObject({ unchanged: false, renamedCount: 4 });
    });

    it('a version no workspace is built on yet has no state to compare: rewritten and stored', async () => {
      const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: withSensitiveName }]));
      const unbuilt = (await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, user_variable_values: [{ name: 'home_suffix', value: 'home' }] })).id;
      expect((await coder.waitForTemplateVersion(unbuilt)).job.status).toBe('succeeded');
      const r = await rewriteWith(given({ home_suffix: secret }))({ subject: 'template coder/k8s-dev', versionId: unbuilt, renameDifferent: false, pushTo: { organization: 'coder', template: sim.template.name } });
      expect(r).toMatchObject({ unchanged: false, renamedCount: 4 });
    });

    it("none given: refused before any gate, saying where to give it", async () => {
      await expect(rewriteToPush(undefined)).rejects.toMatchObject({ type: FailureType.refused, message: expect.stringContaining('key "coder/k8s-dev" of /etc/wsmigrate/variables.json') });
    });

    it("a value that would rename a built workspace's claim: refused naming the workspace, never the value; nothing stored", async () => {
      const before = (await blobs.list()).length;
      const ws = sim.workspaces()[0];
      const err = (await rewriteToPush({ home_suffix: secret }).catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string };
      expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
      expect(err.message).toBe(
        `rewrite template refused for template coder/k8s-dev: the version to push, with the values given in key "coder/k8s-dev" of /etc/wsmigrate/variables.json, would give kubernetes_persistent_volume_claim_v1.home another name (computed from a sensitive variable) than ${ws.owner}/${ws.name}'s state has: ` +
          'its builds would replace those claims. Nothing was pushed. Give the values the active version was pushed with, then run again',
      );
      expect((await blobs.list()).length).toBe(before);
    });
  });
});

/**
 * The sample that stands for the active version's state is a workspace whose latest build on it
 * succeeded. A failed start on it keeps the state of the build before (Coder's FailJob): another
 * version's names, no evidence of what the active version computes from its values.
 */
describe('rewriteTemplateSource: a workspace whose latest build on the active version failed is not its sample', () => {
  let sim: CoderSimulator;
  let dir: string;
  let coder: CoderClient;
  let failedWs: { id: string; owner: string; name: string };
  let goodWs: { id: string; owner: string; name: string };
  let active: string;
  const withSensitiveName = K8S_TEMPLATE_MAIN_TF.replace('-home"', '-${var.home_suffix}"') + '\nvariable "home_suffix" {\n  type      = string\n  sensitive = true\n}\n';
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-rewrite-src-'));
    coder = new CoderClient({ url: sim.url, token: sim.token });
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: withSensitiveName }]));
    active = (await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, user_variable_values: [{ name: 'home_suffix', value: 'home' }] })).id;
    expect((await coder.waitForTemplateVersion(active)).job.status).toBe('succeeded');
    // Neither ends on a successful start, so Coder lists them by owner, then name: the failed one first.
    const key = (w: { owner: string; name: string }) => `${w.owner.toLowerCase()}\0${w.name.toLowerCase()}`;
    [failedWs, goodWs] = [...sim.workspaces()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect((await startBuild(sim, goodWs.id, { transition: 'start', template_version_id: active })).job.status).toBe('succeeded');
    expect((await startBuild(sim, goodWs.id, { transition: 'stop', template_version_id: active })).job.status).toBe('succeeded');
    // The failed one's state names its claim as an older release did; its start on the active version fails and keeps that state.
    const seeded = await latestBuildId(sim, failedWs.id);
    const legacy = (await api(sim, 'GET', `/workspacebuilds/${seeded}/state`)).text.replaceAll(`coder-${failedWs.id}-home`, `coder-${failedWs.id}-legacy`);
    expect((await putState(sim, seeded, legacy)).status).toBe(204);
    sim.setFaults({ failBuilds: { workspaceId: failedWs.id, times: 1 } });
    const failed = await startBuild(sim, failedWs.id, { transition: 'start', template_version_id: active });
    sim.setFaults(undefined);
    expect(failed.job.status).toBe('failed');
    expect((await api(sim, 'GET', `/workspacebuilds/${failed.id}/state`)).text).toContain(`coder-${failedWs.id}-legacy`);
    const listed = await coder.workspacesOfTemplatePage(sim.template.name, { offset: 0, limit: 25 });
    expect(listed.workspaces.map((w) => [w.id, w.latest_build.template_version_id === active, w.latest_build.job.status])).toEqual([
      [failedWs.id, true, 'failed'],
      [goodWs.id, true, 'succeeded'],
    ]);
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const rewriteToPush = (values: Record<string, string>) =>
    stepsOf(
      {
        coder: new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } }),
        blobs: createFileBlobStore({ dir }),
        notifier: { notify: async () => undefined },
        templateVariables: { valuesFor: async () => values, whereFor: () => 'key "coder/k8s-dev" of /etc/wsmigrate/variables.json' },
      },
      { rewrite: makeRewriteTemplateSource },
    ).rewrite({ subject: 'template coder/k8s-dev', versionId: active, renameDifferent: false, pushTo: { organization: 'coder', template: sim.template.name } });

  it('the value the active version was pushed with is not refused over the failed one: rewritten and stored', async () => {
    expect(await rewriteToPush({ home_suffix: 'home' })).toMatchObject({ unchanged: false, renamedCount: 4 });
  });

  it('a wrong value is refused naming the workspace whose build on the active version succeeded', async () => {
    const err = (await rewriteToPush({ home_suffix: 'wr0ng-suffix-9931' }).catch((e: unknown) => e)) as { type: string; message: string };
    expect(err).toMatchObject({ type: FailureType.refused });
    expect(err.message).toContain(`than ${goodWs.owner}/${goodWs.name}'s state has`);
    expect(err.message).not.toContain('wr0ng-suffix-9931');
  });
});
