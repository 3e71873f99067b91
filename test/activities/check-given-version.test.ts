import { makeCheckGivenVersion } from '../../src/activities/check-given-version';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, pushTemplateVersion } from '../sim/helpers';

/**
 * A fleet given `--version` takes it as done for every workspace already on it: only an imported
 * `_v1` version of this very template passes. The template's own old version would end the fleet
 * "done" with none migrated; another template's version, or one whose import failed, is refused the
 * same way, and an id Coder does not know is a typo. Nothing is changed either way.
 */
describe('checkGivenVersion: the fleet accepts only an imported _v1 version of its own template', () => {
  let sim: CoderSimulator;
  let v1: string;
  let guarded: string;
  let broken: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, moreTemplates: [{ name: 'team-tools', workspaces: 1, versioned: true }] });
    // Active, as 'migrate template' leaves it; `guarded` is pushed and not promoted.
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true })).id;
    guarded = (await pushTemplateVersion(sim, fixtureSource('template-v1-guard'))).id;
    broken = (await pushTemplateVersion(sim, fixtureSource('template-broken'))).id;
  });
  afterAll(() => sim.close());
  const check = (versionId: string, template = sim.template.name, fetchImpl?: typeof fetch, requireActiveVersion?: boolean, dryRun?: boolean) =>
    stepsOf(
      { coder: new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...(fetchImpl ? { fetchImpl } : {}) }), blobs: createFileBlobStore({ dir: '/nonexistent-never-written' }), notifier: { notify: async () => undefined } },
      { checkGivenVersion: makeCheckGivenVersion },
    ).checkGivenVersion({ organization: 'coder', template, versionId, ...(requireActiveVersion !== undefined ? { requireActiveVersion } : {}), ...(dryRun !== undefined ? { dryRun } : {}) });
  const refusal = (text: string) => `fleet of template coder/${sim.template.name} refused before any change: ${text}`;

  it("passes the template's own migrated version", async () => {
    await expect(check(v1)).resolves.toBeUndefined();
  });

  it("refuses a _v1 version that is not the active one, with the lock (Coder's autostart would build migrated states on the old one) or without it (an owner's Update would); a dry run passes", async () => {
    await expect(check(guarded, sim.template.name, undefined, true)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringMatching(/refused before any change: template version \S+ \(\S+\) is not the template's active version \(\S+ is\), and the fleet makes the template require its active version: .*destroy its PVC\. Promote the version first \('coder templates versions promote --template \S+ --template-version \S+', or 'wsmigrate migrate template' without --no-promote\)$/),
    });
    const name = (await new CoderClient({ url: sim.url, token: sim.token }).templateVersion(guarded)).name;
    await expect(check(guarded, sim.template.name, undefined, false)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: refusal(
        `template version ${name} (${guarded}) is not the template's active version (${v1} is): every workspace the fleet migrates would show "outdated", ` +
          "and its owner's one click on Update would build the old active version on its _v1 state and destroy its PVC (the fleet would also pause after its first minute, with workspaces already migrated). " +
          `Promote the version first ('coder templates versions promote --template ${sim.template.name} --template-version ${name}', or 'wsmigrate migrate template' without --no-promote), or run a --dry-run against it`,
      ),
    });
    // A dry run builds nothing: it may look at a version before it is promoted.
    await expect(check(guarded, sim.template.name, undefined, false, true)).resolves.toBeUndefined();
  });

  it("with the lock, refuses an active version without guard blocks (every autostart of a workspace not yet migrated would build its old state on it); without the lock it passes", async () => {
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    await coder.promoteTemplateVersion(sim.template.id, guarded);
    try {
      await expect(check(guarded, sim.template.name, undefined, true)).resolves.toBeUndefined();
      // Active, but with no removed{destroy=false} for the PVC's old address: every autostart of a workspace
      // not yet migrated would destroy its PVC on it once the template requires it.
      await coder.promoteTemplateVersion(sim.template.id, v1);
      await expect(check(v1, sim.template.name, undefined, true)).rejects.toMatchObject({
        type: FailureType.refused,
        nonRetryable: true,
        message: expect.stringMatching(/has no removed \{\} guard \(lifecycle \{ destroy = false \}\) for kubernetes_persistent_volume_claim\.home, and the fleet makes the template require its active version: .*--no-require-active-version$/),
      });
      await expect(check(v1, sim.template.name, undefined, false)).resolves.toBeUndefined();
    } finally {
      await coder.promoteTemplateVersion(sim.template.id, v1);
    }
  });

  it("refuses the template's old version, final, naming the template, the version and the old types it still declares", async () => {
    await expect(check(sim.template.originalVersionId)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringContaining(refusal(`template version `)),
    });
    await expect(check(sim.template.originalVersionId)).rejects.toThrow(
      new RegExp(`\\(${sim.template.originalVersionId}\\) still declares kubernetes_.*: it is not a migrated version, and every workspace already on it would be skipped as done`),
    );
  });

  it("refuses another template's version, and one whose import failed", async () => {
    const other = sim.templates().find((t) => t.name === 'team-tools')!.activeVersionId;
    await expect(check(other)).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringContaining(refusal(`template version `)),
    });
    await expect(check(other)).rejects.toThrow(`(${other}) is not a version of template coder/${sim.template.name}`);
    await expect(check(broken)).rejects.toMatchObject({ type: FailureType.refused, nonRetryable: true, message: expect.stringContaining(`(${broken}) did not import successfully`) });
  });

  it('an id Coder does not know is an unknown name (a typo), final; an unknown template is Coder\'s not-found, named by the step', async () => {
    const none = '00000000-0000-0000-0000-000000000000';
    await expect(check(none)).rejects.toMatchObject({
      type: FailureType.unknownName,
      nonRetryable: true,
      message: refusal(`Coder has no template version ${none} (or the token may not read it); pass the _v1 version 'wsmigrate migrate template' printed (its result's versionId), or leave --version out to migrate the template first`),
    });
    await expect(check(v1, 'no-such-template')).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      message: expect.stringMatching(/^check version failed for template coder\/no-such-template: /),
    });
  });

  it('a version Coder cannot read now (500 after the retries) is retried, named by the step and the template: not refused, not passed', async () => {
    const failing: typeof fetch = async (input, init) =>
      String(input).includes(`/templateversions/${v1}`) ? new Response(JSON.stringify({ message: 'database is down' }), { status: 500, headers: { 'content-type': 'application/json' } }) : fetch(input, init);
    await expect(check(v1, sim.template.name, failing)).rejects.toMatchObject({
      type: 'CoderApi.server',
      nonRetryable: false,
      message: expect.stringMatching(new RegExp(`^check version failed for template coder/${sim.template.name}: `)),
    });
  });
});
