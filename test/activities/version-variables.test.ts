import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWiredPreflight } from './fixtures/preflight-step';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource } from '../sim/helpers';

/**
 * A target version pushed by hand with other variable values than the workspace was built with
 * (`coder templates push` does not reuse them): its build would plan the claim in another namespace,
 * destroying the one in use. Refused in preflight, before anything stops.
 */
describe('preflightWorkspace: a target version whose variable values differ from the workspace\'s', () => {
  let sim: CoderSimulator;
  let dir: string;
  let coder: CoderClient;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 97, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-vars-'));
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function pushV1(values?: { name: string; value: string }[]): Promise<string> {
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]));
    const version = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash, ...(values ? { user_variable_values: values } : {}) });
    expect((await coder.waitForTemplateVersion(version.id)).job.status).toBe('succeeded');
    // Promoted, as `coder templates push` does: this file is about the variable values, not which version is active.
    await coder.promoteTemplateVersion(sim.template.id, version.id);
    return version.id;
  }
  const preflight = (targetVersionId: string) =>
    stepsOf({ coder, blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } }, { preflightWorkspace: makeWiredPreflight }).preflightWorkspace({
      owner: sim.workspaces()[0]!.owner,
      workspace: sim.workspaces()[0]!.name,
      template: sim.template.name,
      targetVersionId,
      strategy: 'rename',
    });

  test('another namespace is refused, naming the variable, both values and what to do; nothing is built', async () => {
    const moved = await pushV1([{ name: 'namespace', value: 'team-b' }]);
    const before = (await coder.workspace(sim.workspaces()[0]!.id)).latest_build.build_number;
    const err = await preflight(moved).then(
      () => undefined,
      (e: unknown) => e as { type?: string; nonRetryable?: boolean; message: string },
    );
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err?.message).toContain("namespace: 'coder' → 'team-b'");
    expect(err?.message).toContain("Pass the version 'wsmigrate migrate template' pushed");
    expect((await coder.workspace(sim.workspaces()[0]!.id)).latest_build.build_number).toBe(before);
  });

  test('every changed variable is named, with both values, in one refusal', async () => {
    const both = await pushV1([
      { name: 'namespace', value: 'team-c' },
      { name: 'use_kubeconfig', value: 'true' },
    ]);
    const err = await preflight(both).then(
      () => undefined,
      (e: unknown) => e as { message: string },
    );
    expect(err?.message).toMatch(
      /^preflight refused for [^:]+: template version [^ ]+ stores other template variable values than the version build #\d+ ran \((namespace: 'coder' → 'team-c', use_kubeconfig: 'false' → 'true'|use_kubeconfig: 'false' → 'true', namespace: 'coder' → 'team-c')\), so the migration's build would plan with them: a changed namespace or claim name replaces the home volume\. /,
    );
  });

  test('the same values pass', async () => {
    const same = await pushV1();
    await expect(preflight(same)).resolves.toMatchObject({ renameable: 2, onTargetVersion: false });
  });
});
