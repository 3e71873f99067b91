import { fleetStatus, startFleet } from '../../src/client/fleet';
import { decide } from '../../src/client/approvals';
import type { Licence } from '../../src/sim';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { api } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * What the fleet says about require_active_version is what Coder reads back (issue 21, C): on an
 * AGPL Coder the PATCH answers 200 and is ignored (coderd/database/dbauthz/accesscontrol.go), so
 * the fleet reports it not held; on Premium, held while the run runs and given back as it ends. Either way every home volume keeps its uid while
 * the owners press Start (the previous build's version) and Update (the active version) throughout.
 */
describe.each<[Licence, FleetResult['activeVersionLock']]>([
  ['agpl', { state: 'not-held', reason: expect.stringMatching(/reads it back as false/) as unknown as string }],
  // Held while the run ran, and given back as it ended (no archive here).
  ['premium', { state: 'given-back', atRunEnd: true }],
])('a fleet on a %s Coder', (licence, expectedLock) => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 8, buildLatencyMs: 60, licence }));
  });
  afterAll(async () => env?.close());

  it('reports the lock as Coder reads it back, and keeps every PVC uid while owners press Start and Update', async () => {
    const uids = () => new Map(env.sim.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => [o.name, o.uid]));
    const before = uids();
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, archiveOldVersions: false, approval: { policy: 'none', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    // The owners, through the run: each presses twice, Start as the dashboard sends it (no version) and Update (the active version).
    let running = true;
    let pressed = 0;
    // What Coder reads back while the run runs (Premium: held; AGPL: never).
    let heldSeen = false;
    const owners = (async () => {
      for (let round = 0; round < 2 && running; round++) {
        for (const [i, ws] of env.sim.workspaces().entries()) {
          if (!running) break;
          const body = (round + i) % 2 === 0 ? { transition: 'start' } : { transition: 'start', template_version_id: env.sim.template.activeVersionId };
          const res = await api(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: body });
          if (res.status === 201) pressed++;
          if (running) heldSeen ||= (await env.coder.template(env.sim.template.id)).require_active_version === true;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    })();
    // An Update of an unmigrated workspace fails its guarded build and leaves it damaged: the fleet recovers it (a plain
    // repair asks no one under policy none; anything more asks, and the on-call SRE here approves it).
    const answered = new Set<string>();
    const sre = (async () => {
      while (running) {
        for (const n of env.notes.filter((x) => x.kind === 'approval-requested' && x.gateId && x.planHash)) {
          const key = `${n.workflowId} ${n.gateId} ${n.planHash} ${n.requestedAt}`;
          if (answered.has(key)) continue;
          answered.add(key);
          await decide(env.t.client, n.workflowId, 'approve', { approver: 'sre', gateId: n.gateId!, planHash: n.planHash! }).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    let result: FleetResult;
    try {
      result = (await handle.result()) as FleetResult;
    } finally {
      running = false;
      await owners;
      await sre;
    }
    expect(pressed).toBeGreaterThan(3);
    expect(result.activeVersionLock).toEqual(expectedLock);
    expect(heldSeen).toBe(licence === 'premium');
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    if (licence === 'agpl') {
      expect(result.note).toMatch(/require active version does not hold on template .*Archiving does not stop it either.*wsmigrate scan/);
      const status = await fleetStatus(env.t.client, handle.workflowId);
      expect(status.result?.note ?? status.progress?.note ?? '').toMatch(/does not hold/);
    } else {
      expect(result.note ?? '').not.toMatch(/does not hold/);
    }
    // Every workspace ended somewhere honest; none lost its volume.
    const s = result.summary;
    expect({ ...s, ended: s.migrated + s.restored + s.needsAttention + s.alreadyMigrated + s.failed + s.skipped }).toMatchObject({ failed: 0, ended: 8 });
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(uids()).toEqual(before);
  }, 240_000);
});
