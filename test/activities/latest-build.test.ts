import { makeReadLatestBuild } from '../../src/activities/latest-build';
import { stepsOf } from './fixtures/steps';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { waitForBuild } from '../sim/helpers';
import { changedUnderGate } from '../../src/workflows/gate-watch';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { readLatestBuild: makeReadLatestBuild };

/**
 * readLatestBuild: the build a gate's plan may have been overtaken by. A wrong field here is a
 * gate approving, or refusing, a plan against a build that is not the workspace's latest.
 */
describe('readLatestBuild: the latest build as Coder has it now', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  const acts = () => stepsOf({ coder: new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } }), blobs: undefined as never, notifier: { notify: async () => undefined } }, STEPS);

  it('names the build someone made after the read: its number, transition, job, version, initiator and time', async () => {
    const w = sim.workspaces()[0];
    const before = await acts().readLatestBuild({ workspaceId: w.id, subject: `${w.owner}/${w.name}` });
    // The owner stops it between a gate's plan and its approval.
    const stop = await new CoderClient({ url: sim.url, token: sim.tokenOf(w.owner) }).createWorkspaceBuild(w.id, { transition: 'stop' });
    await waitForBuild(sim, stop.id);
    const now = await acts().readLatestBuild({ workspaceId: w.id, subject: `${w.owner}/${w.name}` });
    expect(now).toEqual({
      id: stop.id,
      buildNumber: before.buildNumber + 1,
      transition: 'stop',
      jobStatus: 'succeeded',
      templateVersionId: sim.template.originalVersionId,
      templateVersionName: expect.any(String),
      initiator: w.owner,
      // A person's build: Coder's default reason. An autostart would say so here, and the gate's words name it.
      reason: 'initiator',
      createdAt: expect.any(String),
    });
    expect(now.id).not.toBe(before.id);
    expect(now.templateVersionName).not.toBe('');
    expect(Date.parse(now.createdAt)).not.toBeNaN();
  });

  it('a workspace deleted since the plan: its delete, which the gate names (Coder answers 410 without include_deleted), not a failed read', async () => {
    const w = sim.workspaces()[1];
    const before = await acts().readLatestBuild({ workspaceId: w.id, subject: `${w.owner}/${w.name}` });
    const del = await new CoderClient({ url: sim.url, token: sim.tokenOf(w.owner) }).createWorkspaceBuild(w.id, { transition: 'delete' });
    await waitForBuild(sim, del.id);
    const now = await acts().readLatestBuild({ workspaceId: w.id, subject: `${w.owner}/${w.name}` });
    expect(now).toMatchObject({ id: del.id, buildNumber: before.buildNumber + 1, transition: 'delete', jobStatus: 'succeeded', initiator: w.owner });
    expect(changedUnderGate(now, { plannedOn: before.buildNumber, approving: 'approving reads again' })).toBe(
      `THE WORKSPACE WAS DELETED SINCE THIS PLAN: build #${now.buildNumber} (delete on ${now.templateVersionName}, succeeded when seen, by ${w.owner}) came after build #${before.buildNumber}, ` +
        'the one backed up and planned. This plan will not be applied: approving or rejecting builds nothing on it, and the run ends naming the delete.',
    );
  });

  it('a workspace Coder does not know fails naming the step and the workspace', async () => {
    await expect(acts().readLatestBuild({ workspaceId: '00000000-0000-4000-8000-000000000000', subject: 'alice/gone' })).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      message: expect.stringMatching(/^latest build failed for alice\/gone: /),
    });
  });
});
