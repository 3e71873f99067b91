import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, migrateStateByHand, pushTemplateVersion } from '../sim/helpers';

/**
 * A state build that fails with Kubernetes' AlreadyExists for an object its own state does not hold:
 * the failure says which object, where the newest recent state held it (namespace, uid, build), what
 * a person does, and how to run the step again (recover's command, or the migration). An object its
 * own state holds is another problem: Terraform's words stand alone. So do they for any other failure.
 */
describe('buildWithState: a build failed by an object left outside its state', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-bws-outside-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Coder lists a workspace's builds newest first; `oldestFirst` hands them the other way round, which the step must not depend on. */
  const oldestFirst: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (!/\/workspaces\/[^/]+\/builds(\?|$)/.test(String(input)) || (init?.method ?? 'GET') !== 'GET') return answer;
    const builds = (await answer.json()) as unknown[];
    return new Response(JSON.stringify(builds.reverse()), { status: answer.status, headers: answer.headers });
  };
  const coder = (fetchImpl?: typeof fetch) =>
    new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 1, maxDelayMs: 2 }, sleep: (ms) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 10))), ...(fetchImpl ? { fetchImpl } : {}) });
  const acts = (fetchImpl?: typeof fetch) => stepsOf({ coder: coder(fetchImpl), blobs, notifier: { notify: async () => undefined } }, { buildWithState: makeBuildWithState });
  const ws = (i: number) => sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const build = async (i: number, body: { transition: 'start' | 'stop'; template_version_id: string; state?: Buffer }) => coder().waitForBuild((await coder().createWorkspaceBuild(ws(i).id, body)).id);
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('the build step succeeded');
      },
      (e: unknown) => e as ApplicationFailure,
    );

  it("names the deployment, its namespace, the build whose state held it (uid) and the way back; recover's rerun names its command, the migration's its own", async () => {
    const original = sim.template.originalVersionId;
    // The old compensation's damage: a stop, a start on the new version with the migrated state (creates
    // the deployment anew), then a start on the old version with the stop's state: AlreadyExists.
    await build(0, { transition: 'stop', template_version_id: original });
    const stopState = sim.stateOf(ws(0).id);
    const started = await build(0, { transition: 'start', template_version_id: v1, state: Buffer.from(migrateStateByHand(stopState)) });
    expect(started.job.status).toBe('succeeded');
    const deployment = `coder-${ws(0).id}`;
    const orphan = sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === deployment);
    expect(orphan).toBeDefined();
    const stopBlob = await blobs.put(Buffer.from(stopState), { kind: 'backup', label: 'test' });

    for (const [purpose, rerun, listing] of [
      ['recover', `Then run \`wsmigrate recover ${subject(0)}\` again (the same --template and --version)`, undefined],
      ['migrate', 'Then run the migration again', oldestFirst],
    ] as const) {
      const read = (await coder().workspace(ws(0).id)).latest_build;
      const err = await failureOf(
        acts(listing).buildWithState({
          purpose,
          workspaceId: ws(0).id,
          subject: subject(0),
          transition: 'start',
          templateVersionId: original,
          state: { ref: stopBlob.ref, sha256: stopBlob.sha256 },
          read: { id: read.id, buildNumber: read.build_number },
          timeoutMs: 30_000,
        }),
      );
      const failed = (await coder().workspace(ws(0).id)).latest_build;
      expect(failed).toMatchObject({ build_number: read.build_number + 1, job: { status: 'failed' } });
      const step = purpose === 'recover' ? 'recovery build' : 'migrated-state build';
      expect(err).toMatchObject({
        type: FailureType.buildFailed,
        nonRetryable: true,
        details: [{ buildId: failed.id, buildNumber: failed.build_number, outsideState: { resource: 'deployments', name: deployment, namespace: 'coder' } }],
      });
      expect(err.message).toContain(`${step} #${failed.build_number} of ${subject(0)} (start on version ${original}) ended failed: `);
      expect(err.message).toContain(`already exists (AlreadyExists), with `);
      expect(err.message).toContain(
        `. Kubernetes object deployments/${deployment} in namespace 'coder' already exists, and the state build #${failed.build_number} ran on does not hold it`,
      );
      // The newest state that held it is the start on the new version's, with the orphan's own uid (an older build's state held an older deployment).
      expect(err.message).toContain(`; the state of build #${started.build_number} held it (uid ${orphan?.uid}) at kubernetes_deployment_v1.main[0]`);
      expect(err.message).toContain(`\`kubectl delete deployments ${deployment} -n coder\``);
      expect(err.message.endsWith(rerun)).toBe(true);
    }
  });

  it("an object its own state holds is another problem than a leftover, and one no recent state holds is named without a namespace; any other failure is Terraform's words alone", async () => {
    const read = (await coder().workspace(ws(1).id)).latest_build;
    const migrated = await blobs.put(Buffer.from(migrateStateByHand(sim.stateOf(ws(1).id))), { kind: 'migrated-state', label: 'test' });
    const input = (readBuild: { id: string; build_number: number }) => ({
      purpose: 'migrate' as const,
      workspaceId: ws(1).id,
      subject: subject(1),
      transition: 'start' as const,
      templateVersionId: v1,
      state: { ref: migrated.ref, sha256: migrated.sha256 },
      read: { id: readBuild.id, buildNumber: readBuild.build_number },
      timeoutMs: 30_000,
    });
    const failing = async (message: string, readBuild: { id: string; build_number: number }) => {
      sim.setFaults({ failBuilds: { workspaceId: ws(1).id, transition: 'start', times: 1, message } });
      try {
        return await failureOf(acts().buildWithState(input(readBuild)));
      } finally {
        sim.setFaults(undefined);
      }
    };
    const head = (n: number) => `migrated-state build #${n} of ${subject(1)} (start on version ${v1}) ended failed: `;

    // The build's own state (the migrated one it was sent) holds the deployment: no leftover advice.
    const held = `deployments "coder-${ws(1).id}" already exists (AlreadyExists), with kubernetes_deployment_v1.main on main.tf`;
    const own = await failing(held, read);
    expect(own.message.startsWith(head(read.build_number + 1))).toBe(true);
    expect(own.message).toContain(held);
    expect(own.message).not.toContain('Kubernetes object');
    expect(own.message).not.toContain('Then run');
    expect(own.message.endsWith(held)).toBe(true);
    expect(own.details).toEqual([{ buildId: expect.any(String), buildNumber: read.build_number + 1 }]);

    // An object no recent state holds: named, its namespace unknown (and said so), the rerun given.
    const after = (await coder().workspace(ws(1).id)).latest_build;
    const stray = await failing('configmaps "stray-settings" already exists', after);
    expect(stray.message).toContain(
      `${head(after.build_number + 1)}`,
    );
    expect(stray.message).toContain(
      "configmaps \"stray-settings\" already exists. Kubernetes object configmaps/stray-settings (its namespace was in none of the recent states: `kubectl get configmaps -A --field-selector metadata.name=stray-settings` finds it) already exists",
    );
    expect(stray.message.endsWith('Then run the migration again')).toBe(true);
    expect(stray.details).toEqual([{ buildId: expect.any(String), buildNumber: after.build_number + 1, outsideState: { resource: 'configmaps', name: 'stray-settings' } }]);

    // Any other failure: Terraform's words, nothing after them.
    const last = (await coder().workspace(ws(1).id)).latest_build;
    const quota = await failing('exceeded quota: compute-resources', last);
    expect(quota.message.startsWith(head(last.build_number + 1))).toBe(true);
    expect(quota.message.endsWith('exceeded quota: compute-resources')).toBe(true);
    expect(quota.details).toEqual([{ buildId: expect.any(String), buildNumber: last.build_number + 1 }]);
  });
});
