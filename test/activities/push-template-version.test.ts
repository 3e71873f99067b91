import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makePromoteTemplateVersion } from '../../src/activities/promote-template-version';
import { makePushTemplateVersion } from '../../src/activities/push-template-version';
import { makeRewriteTemplateSource } from '../../src/activities/rewrite-template-source';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { TemplateVariablesError, type TemplateVariableValues } from '../../src/ports/template-variables';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';

/**
 * Coder's import uses only the variable values sent with a push (the rest get their defaults) and the
 * API reuses no provisioner tags: the migrated version must carry the source version's, or its first
 * build moves the home volume to the default namespace (destroying it) or to another daemon's cluster.
 */
describe('pushTemplateVersion carries the source version\'s variable values and provisioner tags', () => {
  let sim: CoderSimulator;
  let dir: string;
  let coder: CoderClient;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 93, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-push-'));
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = () =>
    stepsOf(
      { coder, blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } },
      { rewriteTemplateSource: makeRewriteTemplateSource, pushTemplateVersion: makePushTemplateVersion, promoteTemplateVersion: makePromoteTemplateVersion },
    );

  /** Pushes and promotes a version as an admin would with `coder templates push --var … --provisioner-tag …`. */
  async function pushActive(source: string, extra: { user_variable_values?: { name: string; value: string }[]; provisioner_tags?: Record<string, string> }): Promise<string> {
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: source }]));
    const version = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, ...extra });
    const done = await coder.waitForTemplateVersion(version.id);
    expect(done.job.status).toBe('succeeded');
    await coder.promoteTemplateVersion(sim.template.id, version.id);
    return version.id;
  }

  async function rewriteAndPush(sourceVersionId: string): Promise<{ versionId: string; versionName: string }> {
    const a = acts();
    const rewritten = await a.rewriteTemplateSource({ subject: 'coder/k8s-dev', versionId: sourceVersionId, renameDifferent: false });
    return new MockActivityEnvironment().run(a.pushTemplateVersion, {
      subject: 'coder/k8s-dev',
      organizationId: sim.orgId,
      templateId: sim.template.id,
      sourceRef: rewritten.source!.ref,
      versionName: rewritten.versionName,
      sourceVersionId,
    });
  }

  test('the new version stores the values the active one was pushed with (not the defaults) and runs on the same daemons', async () => {
    const active = await pushActive(K8S_TEMPLATE_MAIN_TF, { user_variable_values: [{ name: 'namespace', value: 'team-a' }], provisioner_tags: { cluster: 'east' } });
    const pushed = await rewriteAndPush(active);
    const variables = await coder.templateVersionVariables(pushed.versionId);
    expect(variables.find((v) => v.name === 'namespace')).toMatchObject({ value: 'team-a', default_value: 'coder' });
    expect((await coder.templateVersion(pushed.versionId)).job.tags).toEqual({ scope: 'organization', owner: '', cluster: 'east' });
  });

  test('a sensitive variable is refused before anything is pushed, naming it and how to push by hand', async () => {
    const withSecret = `${K8S_TEMPLATE_MAIN_TF}\nvariable "registry_token" {\n  type      = string\n  sensitive = true\n  default   = ""\n}\n`;
    const active = await pushActive(withSecret, { user_variable_values: [{ name: 'registry_token', value: 'tok-123' }] });
    const before = (await coder.templateVersions(sim.template.id)).length;
    const err = await rewriteAndPush(active).then(
      () => undefined,
      (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string },
    );
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err?.message).toContain('template variable(s) registry_token');
    expect(err?.message).toContain('coder templates push --var');
    expect(err?.message).not.toContain('tok-123');
    expect((await coder.templateVersions(sim.template.id)).length).toBe(before);
  });
  describe("the values the worker is given for a template's sensitive variables", () => {
    const withSecret = `${K8S_TEMPLATE_MAIN_TF}\nvariable "registry_token" {\n  type      = string\n  sensitive = true\n  default   = ""\n}\n`;
    /** What each push sent as the new version's variable values, recorded from the client's requests. */
    const sentValues: unknown[] = [];
    const recording: typeof fetch = async (url, init) => {
      if (init?.method === 'POST' && /\/organizations\/[^/]+\/templateversions$/.test(String(url))) sentValues.push((JSON.parse(String(init.body)) as { user_variable_values?: unknown }).user_variable_values);
      return fetch(url, init);
    };
    async function pushWith(templateVariables: TemplateVariableValues, source = withSecret) {
      const active = await pushActive(source, source === withSecret ? { user_variable_values: [{ name: 'registry_token', value: 'tok-123' }] } : {});
      const rewritten = await acts().rewriteTemplateSource({ subject: 'coder/k8s-dev', versionId: active, renameDifferent: false });
      const push = makePushTemplateVersion({ coder: new CoderClient({ url: sim.url, token: sim.token, fetchImpl: recording }), blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined }, templateVariables });
      sentValues.length = 0;
      const input = { subject: 'coder/k8s-dev', organizationId: sim.orgId, templateId: sim.template.id, sourceRef: rewritten.source!.ref, versionName: rewritten.versionName, sourceVersionId: active, organization: 'coder', template: sim.template.name };
      return push(input);
    }
    const given = (values: Record<string, string> | undefined, read: string[] = []): TemplateVariableValues => ({
      valuesFor: async (organization, template) => {
        read.push(`${organization}/${template}`);
        return values;
      },
      whereFor: (organization, template) => `key "${organization}/${template}" of /etc/wsmigrate/variables.json`,
    });

    test('given, the new version is pushed with them: the migrated version keeps the registry token', async () => {
      const read: string[] = [];
      const pushed = await pushWith(given({ registry_token: 'tok-123' }, read));
      expect((await coder.templateVersion(pushed.versionId)).job.status).toBe('succeeded');
      expect(read).toEqual([`coder/${sim.template.name}`]);
      expect(sentValues).toEqual([expect.arrayContaining([{ name: 'registry_token', value: 'tok-123' }])]);
    });

    test('not given for this template, the refusal says where to give them; a source that cannot be read is refused in its own words; nothing is pushed', async () => {
      const before = (await coder.templateVersions(sim.template.id)).length;
      await expect(pushWith(given(undefined))).rejects.toMatchObject({ type: FailureType.refused, message: expect.stringContaining(`key "coder/${sim.template.name}" of /etc/wsmigrate/variables.json`) });
      const broken: TemplateVariableValues = {
        valuesFor: async () => Promise.reject(new TemplateVariablesError('WSMIGRATE_TEMPLATE_VARIABLES: /etc/wsmigrate/variables.json is not a JSON object')),
        whereFor: () => 'nowhere',
      };
      await expect(pushWith(broken)).rejects.toMatchObject({
        type: FailureType.refused,
        nonRetryable: true,
        message: 'push template version refused for coder/k8s-dev: WSMIGRATE_TEMPLATE_VARIABLES: /etc/wsmigrate/variables.json is not a JSON object',
      });
      expect(sentValues).toEqual([]);
      // The two versions pushed by hand as the active one, none by the step.
      expect((await coder.templateVersions(sim.template.id)).length).toBe(before + 2);
    });

    test('a push that does not name its organization and template cannot pick the values: refused as not given, never guessed', async () => {
      const read: string[] = [];
      const active = await pushActive(withSecret, { user_variable_values: [{ name: 'registry_token', value: 'tok-123' }] });
      const rewritten = await acts().rewriteTemplateSource({ subject: 'coder/k8s-dev', versionId: active, renameDifferent: false });
      const push = makePushTemplateVersion({ coder, blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined }, templateVariables: given({ registry_token: 'tok-123' }, read) });
      const input = { subject: 'coder/k8s-dev', organizationId: sim.orgId, templateId: sim.template.id, sourceRef: rewritten.source!.ref, versionName: rewritten.versionName, sourceVersionId: active };
      for (const named of [{}, { organization: 'coder' }, { template: sim.template.name }]) {
        await expect(push({ ...input, ...named })).rejects.toMatchObject({ type: FailureType.refused, message: expect.stringContaining('registry_token') });
      }
      expect(read).toEqual([]);
    });

    test('a source that fails for another reason (its store unreachable) is not a refusal: the step fails for a retry', async () => {
      const unreachable: TemplateVariableValues = { valuesFor: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:443')), whereFor: () => 'nowhere' };
      const err = (await pushWith(unreachable).catch((e: unknown) => e)) as { type?: string; message: string };
      expect(err.message).toBe('connect ECONNREFUSED 10.0.0.9:443');
      expect(err.type).not.toBe(FailureType.refused);
    });

    test('a template without a sensitive variable never reads them: a broken source does not stop its push', async () => {
      const read: string[] = [];
      const broken: TemplateVariableValues = {
        valuesFor: async (organization, template) => {
          read.push(`${organization}/${template}`);
          throw new TemplateVariablesError('unreadable');
        },
        whereFor: () => 'nowhere',
      };
      const pushed = await pushWith(broken, K8S_TEMPLATE_MAIN_TF);
      expect((await coder.templateVersion(pushed.versionId)).job.status).toBe('succeeded');
      expect(read).toEqual([]);
    });
  });

  test('run again after its version was created (a retry), it finds that version by name instead of pushing a second one', async () => {
    const a = acts();
    const rewritten = await a.rewriteTemplateSource({ subject: 'coder/k8s-dev', versionId: sim.template.originalVersionId, renameDifferent: false });
    const input = { subject: 'coder/k8s-dev', organizationId: sim.orgId, templateId: sim.template.id, sourceRef: rewritten.source!.ref, versionName: rewritten.versionName, sourceVersionId: sim.template.originalVersionId };
    const first = await a.pushTemplateVersion(input);
    const count = (await coder.templateVersions(sim.template.id)).length;
    expect(await a.pushTemplateVersion(input)).toEqual(first);
    expect((await coder.templateVersions(sim.template.id)).length).toBe(count);
    expect((await coder.templateVersion(first.versionId)).name).toBe(rewritten.versionName);
  });

  test('a version whose import fails is refused with what Coder said, and the active version is unchanged', async () => {
    const active = sim.template.activeVersionId;
    const blobs = createFileBlobStore({ dir });
    const broken = await blobs.put(await packTar([{ name: 'main.tf', content: 'resource "kubernetes_deployment_v1" "main" {\n' }]), { kind: 'template-source', label: 'test' });
    const push = acts().pushTemplateVersion({ subject: 'coder/k8s-dev', organizationId: sim.orgId, templateId: sim.template.id, sourceRef: broken.ref, versionName: 'wsmigrate-broken', sourceVersionId: active });
    await expect(push).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringMatching(/^push template version refused for coder\/k8s-dev: the new version wsmigrate-broken failed to import \(failed: .+\); the active version is unchanged$/),
    });
    // Coder's own words for the failure, not the fallback for a job without any.
    expect(((await push.catch((e: unknown) => e)) as Error).message).not.toContain('no error text');
    expect((await coder.template(sim.template.id)).active_version_id).toBe(active);
  });
});
