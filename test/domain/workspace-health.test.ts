import { describeLoss } from '../../src/domain/protected-loss';
import {
  assessWorkspaceHealth,
  buildsToCheckForDeletes,
  destroyedAddressesInLog,
  findProtectedLosses,
  protectedIdentities,
  type BuildSnapshot,
  type JobStatus,
} from '../../src/domain/workspace-health';

type Res = { module?: string; type: string; name: string; uid?: string; id?: string | null; index?: number | string; mode?: 'managed' | 'data' };

const state = (resources: Res[]): string =>
  JSON.stringify({
    version: 4,
    terraform_version: '1.9.0',
    serial: 1,
    lineage: 'l-1',
    outputs: {},
    resources: resources.map((r) => ({
      ...(r.module ? { module: r.module } : {}),
      mode: r.mode ?? 'managed',
      type: r.type,
      name: r.name,
      provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
      instances: [{ ...(r.index !== undefined ? { index_key: r.index } : {}), schema_version: 0, attributes: { ...(r.id === null ? {} : { id: r.id ?? `coder/${r.name}` }), metadata: r.uid ? [{ uid: r.uid }] : [] } }],
    })),
  });

const PVC = 'kubernetes_persistent_volume_claim';
const PVC1 = 'kubernetes_persistent_volume_claim_v1';
const DEP = 'kubernetes_deployment';
const DEP1 = 'kubernetes_deployment_v1';
const OLD = '00000000-0000-4000-8000-000000000001';
const NEW = '00000000-0000-4000-8000-000000000002';

let n = 0;
/** Builds given oldest first (as they happened); the health check takes them newest first. */
function history(...builds: [BuildSnapshot['transition'], JobStatus, Res[] | { error: string } | undefined, string?][]): BuildSnapshot[] {
  n = 0;
  return builds
    .map(([transition, jobStatus, s, version]) => {
      n++;
      return {
        id: `b${n}`,
        number: n,
        transition,
        jobStatus,
        templateVersionId: version ?? OLD,
        at: `2026-11-30T10:0${n}:00Z`,
        ...(s === undefined ? {} : { state: Array.isArray(s) ? { text: state(s) } : s }),
      };
    })
    .reverse();
}

const home = (type = PVC, uid = 'uid-1'): Res => ({ type, name: 'home', uid });
const dep = (type = DEP): Res => ({ type, name: 'main', index: 0 });

describe('protectedIdentities', () => {
  it('keys PVCs by their versioned type so old and migrated states compare, and skips other kinds', () => {
    const ids = protectedIdentities(JSON.parse(state([home(PVC, 'u'), dep()])).resources);
    expect(ids).toEqual([{ key: `${PVC1}.home`, address: `${PVC}.home`, id: 'coder/home', uid: 'u' }]);
  });

  it('reads an entry Terraform wrote without attributes as a protected object with no id or uid (not a crash of the health check)', () => {
    expect(protectedIdentities([{ mode: 'managed', type: PVC, name: 'home', instances: [{}] }])).toEqual([{ key: `${PVC1}.home`, address: `${PVC}.home`, id: undefined, uid: undefined }]);
  });

  it('includes annotated resources (either type name, module keys ignored) and PVs', () => {
    const parsed = JSON.parse(
      state([
        { type: 'kubernetes_secret', name: 'creds', uid: 's1' },
        { module: 'module.app[0]', type: 'kubernetes_config_map_v1', name: 'cfg', uid: 'c1' },
        { type: 'kubernetes_persistent_volume', name: 'pv', uid: 'p1' },
        { type: 'kubernetes_service', name: 'web', uid: 'w1' },
      ]),
    ).resources;
    // An annotation that names no resource address (no `type.name`) protects nothing, and breaks nothing.
    const keys = protectedIdentities(parsed, ['kubernetes_secret_v1.creds', 'not-an-address', 'module.app.kubernetes_config_map.cfg']).map((p) => p.key);
    expect(keys).toEqual(['kubernetes_secret_v1.creds', 'module.app[0].kubernetes_config_map_v1.cfg', 'kubernetes_persistent_volume_v1.pv']);
  });
});

describe('assessWorkspaceHealth', () => {
  it('unmigrated: deprecated types in the latest state, nothing lost', () => {
    const h = assessWorkspaceHealth({ builds: history(['start', 'succeeded', [home(), dep()]], ['stop', 'succeeded', [home()]]) });
    expect(h).toMatchObject({ health: 'unmigrated', deprecatedLeft: 1, losses: [] });
  });

  it('migrated: the latest build succeeded on a _v1 version and holds every protected object', () => {
    const h = assessWorkspaceHealth({
      builds: history(['stop', 'succeeded', [home()]], ['start', 'succeeded', [home(PVC1), dep(DEP1)], NEW]),
      v1VersionIds: [NEW],
    });
    expect(h).toMatchObject({ health: 'migrated', losses: [], deprecatedLeft: 0 });
  });

  it('a migrated state on a version without _v1 types is not migrated (pushed, start still pending)', () => {
    const h = assessWorkspaceHealth({ builds: history(['stop', 'succeeded', [home(PVC1)]]), v1VersionIds: [NEW] });
    expect(h.health).toBe('unmigrated');
    expect(h.reason).toMatch(/start it pinned/);
  });

  it('damaged, forgotten: a guarded Update of an unmigrated workspace failed and its state lost the PVC', () => {
    const builds = history(['start', 'succeeded', [home(), dep()]], ['stop', 'succeeded', [home()]], ['start', 'failed', [], NEW]);
    const h = assessWorkspaceHealth({ builds, v1VersionIds: [NEW] });
    expect(h.health).toBe('damaged');
    expect(h.losses).toEqual([
      {
        address: `${PVC}.home`,
        key: `${PVC1}.home`,
        kind: 'forgotten',
        build: { id: 'b3', number: 3, at: '2026-11-30T10:03:00Z' },
        heldIn: { id: 'b2', number: 2 },
        before: { id: 'coder/home', uid: 'uid-1' },
      },
    ]);
    expect(h.recoverFrom).toEqual({ id: 'b2', number: 2 });
    expect(h.reason).toMatch(/forgotten by build #3 .* last held by build #2/);
  });

  it('damaged, destroyed: the log of the build that lost the entry shows a delete', () => {
    const builds = history(['stop', 'succeeded', [home(PVC1)]], ['stop', 'succeeded', []]);
    const h = assessWorkspaceHealth({ builds, destroyedByBuild: new Map([[2, [`${PVC1}.home`]]]) });
    expect(h.health).toBe('damaged');
    expect(h.losses[0]).toMatchObject({ kind: 'destroyed', build: { number: 2 } });
    expect(h.recoverFrom).toBeUndefined();
  });

  it('damaged, forgotten, when the log of the build that lost the entry was not read: no delete is taken for granted', () => {
    const builds = history(['stop', 'succeeded', [home(PVC1)]], ['stop', 'succeeded', []]);
    expect(assessWorkspaceHealth({ builds, destroyedByBuild: new Map([[1, [`${PVC1}.home`]]]) }).losses[0]).toMatchObject({ kind: 'forgotten', build: { number: 2 } });
  });

  it('damaged, destroyed: a later state holds the object with a new uid (the KB option A with a plain start)', () => {
    const builds = history(['stop', 'succeeded', [home(PVC1, 'uid-1')]], ['start', 'succeeded', [home(PVC, 'uid-2'), dep()]]);
    const h = assessWorkspaceHealth({ builds, v1VersionIds: [NEW] });
    expect(h.health).toBe('damaged');
    expect(h.losses).toEqual([expect.objectContaining({ kind: 'destroyed', build: expect.objectContaining({ number: 2 }), before: expect.objectContaining({ uid: 'uid-1' }), after: expect.objectContaining({ uid: 'uid-2' }) })]);
    expect(h.recoverFrom).toBeUndefined();
    expect(h.reason).toMatch(/destroyed by build #2 \(uid uid-1 is now uid-2\)/);
  });

  describe('a new uid at the address and a log that shows no delete: a new object made beside the old one', () => {
    // A claim named by generate_name: a guarded build forgets the old claim (removed, destroy = false)
    // and the API server names the new one afresh, so the build succeeds on an empty volume.
    const forcedBuild = () => history(['stop', 'succeeded', [home(PVC, 'uid-1')]], ['start', 'succeeded', [home(PVC1, 'uid-2'), dep()]], ['stop', 'succeeded', [home(PVC1, 'uid-2')]]);

    it('is orphaned, not destroyed: the old object is the one to put back (recoverFrom), and the text says it may still exist', () => {
      const h = assessWorkspaceHealth({ builds: forcedBuild(), destroyedByBuild: new Map([[2, []]]), v1VersionIds: [NEW] });
      expect(h.health).toBe('damaged');
      expect(h.losses).toEqual([expect.objectContaining({ kind: 'orphaned', build: expect.objectContaining({ number: 2 }), before: expect.objectContaining({ uid: 'uid-1' }), after: expect.objectContaining({ uid: 'uid-2' }) })]);
      expect(h.recoverFrom).toEqual({ id: 'b1', number: 1 });
      expect(h.reason).toMatch(/replaced in the state by build #2 \(a new object, uid uid-2, took its address and the log shows no delete: unless it was deleted outside Terraform, uid uid-1 is still in the cluster, unmanaged\)/);
      expect(h.reason).not.toMatch(/destroyed/);
    });

    it('stays destroyed when that log shows the delete, or was not read', () => {
      const logged = assessWorkspaceHealth({ builds: forcedBuild(), destroyedByBuild: new Map([[2, [`${PVC1}.home`]]]) });
      expect(logged.losses).toEqual([expect.objectContaining({ kind: 'destroyed', build: expect.objectContaining({ number: 2 }) })]);
      expect(logged.recoverFrom).toBeUndefined();
      const unread = assessWorkspaceHealth({ builds: forcedBuild(), destroyedByBuild: new Map([[3, []]]) });
      expect(unread.losses).toEqual([expect.objectContaining({ kind: 'destroyed' })]);
    });

    it('is no loss once a build holds the old object again (recovered)', () => {
      const builds = history(['stop', 'succeeded', [home(PVC, 'uid-1')]], ['start', 'succeeded', [home(PVC1, 'uid-2')]], ['start', 'succeeded', [home(PVC1, 'uid-1'), dep(DEP1)], NEW]);
      const h = assessWorkspaceHealth({ builds, destroyedByBuild: new Map([[2, []]]), v1VersionIds: [NEW] });
      expect(h.losses).toEqual([]);
      expect(h.health).toBe('migrated');
    });

    it('has the log of that build read (buildsToCheckForDeletes)', () => {
      expect(buildsToCheckForDeletes(forcedBuild())).toEqual([2]);
    });
  });

  it('a loss stays a loss when later builds keep the new object', () => {
    const builds = history(['start', 'succeeded', [home(PVC1, 'a')]], ['start', 'succeeded', [home(PVC, 'b')]], ['stop', 'succeeded', [home(PVC, 'b')]]);
    const { losses } = findProtectedLosses(builds);
    expect(losses).toHaveLength(1);
    expect(losses[0]).toMatchObject({ kind: 'destroyed', build: { number: 2 } });
  });

  it('a forgotten entry that went missing and came back with a new uid was destroyed where it went missing', () => {
    const builds = history(['stop', 'succeeded', [home(PVC, 'a')]], ['start', 'failed', []], ['start', 'succeeded', [home(PVC1, 'b')]]);
    const { losses } = findProtectedLosses(builds);
    expect(losses).toEqual([expect.objectContaining({ kind: 'destroyed', build: expect.objectContaining({ number: 2 }) })]);
  });

  it('a forgotten entry put back with the same uid (a recovery) is healthy again', () => {
    const builds = history(['stop', 'succeeded', [home(PVC, 'a')]], ['start', 'failed', []], ['start', 'succeeded', [home(PVC1, 'a'), dep(DEP1)], NEW]);
    expect(assessWorkspaceHealth({ builds, v1VersionIds: [NEW] })).toMatchObject({ health: 'migrated', losses: [] });
  });

  it('damaged when the latest build failed, even with nothing lost; recovery starts from its own state', () => {
    const builds = history(['start', 'succeeded', [home()]], ['start', 'failed', [home()]]);
    const h = assessWorkspaceHealth({ builds });
    expect(h).toMatchObject({ health: 'damaged', losses: [], recoverFrom: { number: 2 } });
    expect(h.reason).toMatch(/latest build #2 \(start\) failed/);
  });

  it('a canceled latest build counts as damaged too (it may have stopped halfway)', () => {
    expect(assessWorkspaceHealth({ builds: history(['start', 'succeeded', [home()]], ['start', 'canceled', [home()]]) }).health).toBe('damaged');
  });

  it('only a successful build sets the reference: a failed build that briefly held an object does not', () => {
    const builds = history(['start', 'succeeded', []], ['start', 'failed', [home()]], ['start', 'succeeded', []]);
    expect(findProtectedLosses(builds).losses).toEqual([]);
  });

  it('an annotated resource lost is damage too', () => {
    const secret: Res = { type: 'kubernetes_secret', name: 'creds', uid: 's1' };
    const builds = history(['start', 'succeeded', [home(), secret]], ['start', 'failed', [home()]]);
    const h = assessWorkspaceHealth({ builds, annotatedAddresses: ['kubernetes_secret.creds'] });
    expect(h.losses.map((l) => l.address)).toEqual(['kubernetes_secret.creds']);
    expect(assessWorkspaceHealth({ builds }).losses).toEqual([]);
  });

  it('picks the newest build that holds every protected object, skipping ones that lost any', () => {
    const builds = history(
      ['start', 'succeeded', [home(), { type: PVC, name: 'data', uid: 'd' }]],
      ['stop', 'succeeded', [home(), { type: PVC, name: 'data', uid: 'd' }]],
      ['start', 'failed', [home()]],
      ['start', 'failed', []],
    );
    expect(assessWorkspaceHealth({ builds }).recoverFrom).toEqual({ id: 'b2', number: 2 });
  });

  it('busy while a build is pending, running or canceling', () => {
    for (const s of ['pending', 'running', 'canceling'] as JobStatus[]) {
      const builds = history(['start', 'succeeded', [home()]], ['stop', s, undefined]);
      const b = builds[0];
      // The whole answer: the build it waits for is what the CLI and the workflow name.
      expect(assessWorkspaceHealth({ builds })).toEqual({
        health: 'busy',
        reason: `build #2 (stop) is ${s}`,
        latest: { id: b.id, number: 2, transition: 'stop', jobStatus: s, templateVersionId: b.templateVersionId },
        losses: [],
        deprecatedLeft: 0,
      });
    }
  });

  it('unreadable: says why (read error, not a state, not read, no builds)', () => {
    expect(assessWorkspaceHealth({ builds: history(['start', 'succeeded', { error: 'GET state answered 404' }]) })).toMatchObject({ health: 'unreadable', reason: 'GET state answered 404' });
    const garbage = history(['start', 'succeeded', [home()]]);
    garbage[0].state = { text: '{"version": 3}' };
    expect(assessWorkspaceHealth({ builds: garbage }).reason).toMatch(/build #1 is not a Terraform state: .*format version 3/);
    expect(assessWorkspaceHealth({ builds: history(['start', 'succeeded', undefined]) }).reason).toMatch(/was not read/);
    expect(assessWorkspaceHealth({ builds: [] })).toEqual({ health: 'unreadable', reason: 'the workspace has no builds', losses: [], deprecatedLeft: 0 });
  });

  it('an unreadable older state is skipped, not fatal', () => {
    const builds = history(['start', 'succeeded', { error: 'boom' }], ['start', 'succeeded', [home()]]);
    expect(assessWorkspaceHealth({ builds }).health).toBe('unmigrated');
  });

  it('without the _v1 version list the latest state alone decides', () => {
    expect(assessWorkspaceHealth({ builds: history(['start', 'succeeded', [home(PVC1)], NEW]) }).health).toBe('migrated');
  });
});

describe('reading build logs for deletes', () => {
  it('asks only for the builds where an entry went missing or another object (new uid) took its address', () => {
    const builds = history(['start', 'succeeded', [home()]], ['start', 'succeeded', [home(PVC, 'x')]], ['stop', 'failed', []]);
    expect(buildsToCheckForDeletes(builds)).toEqual([2, 3]);
  });

  it('finds Terraform destroy lines, with modules and keys', () => {
    expect(
      destroyedAddressesInLog([
        'kubernetes_persistent_volume_claim_v1.home: Destroying... [id=coder/x]',
        'module.a[0].kubernetes_secret.s["k"]: Destruction complete after 0s',
        '  # kubernetes_deployment.main will be destroyed',
        'kubernetes_persistent_volume_claim.home: Removing from state (destroy = false)...',
      ]),
    ).toEqual(['kubernetes_persistent_volume_claim_v1.home', 'module.a[0].kubernetes_secret.s["k"]']);
  });
});

describe('what counts as the same protected object, and where it was lost', () => {
  const view = (extra: Partial<{ mode: 'managed' | 'data'; module: string; deposed: string; attributes: Record<string, unknown> }> = {}) => ({
    mode: extra.mode ?? ('managed' as const),
    ...(extra.module ? { module: extra.module } : {}),
    type: PVC,
    name: 'home',
    instances: [{ ...(extra.deposed ? { deposed: extra.deposed } : {}), attributes: extra.attributes ?? { id: 'coder/home', metadata: [{ uid: 'u1' }] } }],
  });

  it('a data source or a deposed instance is no protected object; metadata as one object or a null entry is read safely', () => {
    expect(protectedIdentities([view({ mode: 'data' })])).toEqual([]);
    expect(protectedIdentities([view({ deposed: 'abcd1234' })])).toEqual([]);
    expect(protectedIdentities([view({ attributes: { id: 'coder/home', metadata: { uid: 'u9' } } })])).toEqual([{ key: `${PVC1}.home`, address: `${PVC}.home`, id: 'coder/home', uid: 'u9' }]);
    expect(protectedIdentities([view({ attributes: { id: 'coder/home', metadata: [null] } })])).toEqual([{ key: `${PVC1}.home`, address: `${PVC}.home`, id: 'coder/home', uid: undefined }]);
  });

  it('an annotation names a module call without its key, however long the key', () => {
    const parsed = JSON.parse(state([{ module: 'module.app["blue-1"]', type: 'kubernetes_config_map', name: 'cfg', uid: 'c1' }])).resources;
    expect(protectedIdentities(parsed, ['module.app.kubernetes_config_map_v1.cfg']).map((p) => p.address)).toEqual(['module.app["blue-1"].kubernetes_config_map.cfg']);
  });

  it('the same uid under another id is another object: destroyed; without a uid, the id alone decides', () => {
    const other = findProtectedLosses(history(['start', 'succeeded', [{ ...home(PVC1, 'u1'), id: 'coder/home' }]], ['start', 'succeeded', [{ ...home(PVC1, 'u1'), id: 'coder/home-2' }]]));
    expect(other.losses).toEqual([expect.objectContaining({ kind: 'destroyed', before: { id: 'coder/home', uid: 'u1' }, after: { id: 'coder/home-2', uid: 'u1' } })]);
    const noUid = (id: string): Res => ({ type: PVC1, name: 'home', id });
    expect(findProtectedLosses(history(['start', 'succeeded', [noUid('coder/a')]], ['start', 'succeeded', [noUid('coder/a')]])).losses).toEqual([]);
    expect(findProtectedLosses(history(['start', 'succeeded', [noUid('coder/a')]], ['start', 'succeeded', [noUid('coder/b')]])).losses).toEqual([expect.objectContaining({ kind: 'destroyed' })]);
    // What the reference did not record cannot differ: a uid learnt later, or an id learnt later, is the same object.
    expect(findProtectedLosses(history(['start', 'succeeded', [noUid('coder/a')]], ['start', 'succeeded', [{ ...noUid('coder/a'), uid: 'u1' }]])).losses).toEqual([]);
    expect(findProtectedLosses(history(['start', 'succeeded', [{ ...home(PVC1, 'u1'), id: null }]], ['start', 'succeeded', [home(PVC1, 'u1')]])).losses).toEqual([]);
  });

  it("a build's log names the destroyed object among others, by its address in that state or by its _v1 twin's", () => {
    const builds = () => history(['stop', 'succeeded', [home(PVC)]], ['stop', 'succeeded', []]);
    const kindWhenLogSays = (...addresses: string[]) => findProtectedLosses(builds(), { destroyedByBuild: new Map([[2, addresses]]) }).losses.map((l) => l.kind);
    expect(kindWhenLogSays(`${DEP}.main[0]`, `${PVC}.home`)).toEqual(['destroyed']);
    expect(kindWhenLogSays(`${PVC1}.home`)).toEqual(['destroyed']);
    expect(kindWhenLogSays(`${DEP}.main[0]`)).toEqual(['forgotten']);
    expect(kindWhenLogSays()).toEqual(['forgotten']);
  });

  it('losses come oldest build first, then by address; the reason lists them all', () => {
    const builds = history(
      ['start', 'succeeded', [home(PVC1, 'h1'), { type: 'kubernetes_persistent_volume_v1', name: 'pv', uid: 'p1' }, { type: PVC1, name: 'data', uid: 'd1' }]],
      ['start', 'succeeded', [home(PVC1, 'h1'), { type: PVC1, name: 'data', uid: 'd1' }]],
      ['start', 'succeeded', []],
    );
    const h = assessWorkspaceHealth({ builds });
    expect(h.losses.map((l) => `${l.build.number} ${l.key}`)).toEqual([`2 kubernetes_persistent_volume_v1.pv`, `3 ${PVC1}.data`, `3 ${PVC1}.home`]);
    expect(h.reason).toBe(h.losses.map((l) => `${l.address} forgotten by build #${l.build.number} (its state has no entry; the object was not deleted) at ${l.build.at}; last held by build #${l.heldIn.number}`).join('; '));
  });

  it('the builds whose log must be read include those where an annotated object went missing', () => {
    const builds = history(['start', 'succeeded', [{ type: 'kubernetes_secret', name: 'creds', uid: 's1' }, home(PVC1)]], ['start', 'succeeded', [home(PVC1)]]);
    expect(buildsToCheckForDeletes(builds)).toEqual([]);
    expect(buildsToCheckForDeletes(builds, ['kubernetes_secret.creds'])).toEqual([2]);
  });

  it('counts both kinds of deprecated instances left, and says so; a healthy _v1 workspace says what it holds', () => {
    const h = assessWorkspaceHealth({ builds: history(['start', 'succeeded', [home(), { type: 'kubernetes_ingress', name: 'web' }]]) });
    expect(h).toMatchObject({ health: 'unmigrated', deprecatedLeft: 2, reason: '2 instance(s) of deprecated types in the state' });
    const ok = assessWorkspaceHealth({ builds: history(['start', 'succeeded', [home(PVC1), dep(DEP1)], NEW]), v1VersionIds: [NEW] });
    expect(ok.reason).toBe('build #1 succeeded on a _v1 version; 1 protected object(s) present');
    const pending = assessWorkspaceHealth({ builds: history(['stop', 'succeeded', [home(PVC1)]]), v1VersionIds: [NEW] });
    expect(pending.reason).toBe('the state has only _v1 types but build #1 ran a version without them: start it pinned to the _v1 version (a plain start would destroy the volumes)');
  });
});

describe('describeLoss', () => {
  const base = { address: `${PVC}.home`, key: `${PVC1}.home`, build: { id: 'b3', number: 3, at: 'T3' }, heldIn: { id: 'b2', number: 2 }, before: { id: 'coder/home', uid: 'u1' } };
  it('says how the object was lost: by a new uid (? when unknown), or by the delete in the log', () => {
    expect(describeLoss({ ...base, kind: 'destroyed', after: { id: 'coder/home' } })).toBe(`${PVC}.home destroyed by build #3 (uid u1 is now ?) at T3; last held by build #2`);
    expect(describeLoss({ ...base, kind: 'destroyed', before: { id: 'coder/home' }, after: { uid: 'u2' } })).toBe(`${PVC}.home destroyed by build #3 (uid ? is now u2) at T3; last held by build #2`);
    expect(describeLoss({ ...base, kind: 'destroyed' })).toBe(`${PVC}.home destroyed by build #3 (its log shows the delete) at T3; last held by build #2`);
  });

  it('an orphaned object names both uids, ? for one the states did not hold', () => {
    const orphaned = (before: { uid?: string }, after?: { uid?: string }) => describeLoss({ ...base, kind: 'orphaned', before, ...(after ? { after } : {}) });
    const text = (newUid: string, oldUid: string) =>
      `${PVC}.home replaced in the state by build #3 (a new object, uid ${newUid}, took its address and the log shows no delete: unless it was deleted outside Terraform, uid ${oldUid} is still in the cluster, unmanaged) at T3; last held by build #2`;
    expect(orphaned({ uid: 'u1' }, { uid: 'u2' })).toBe(text('u2', 'u1'));
    expect(orphaned({}, {})).toBe(text('?', '?'));
    expect(orphaned({ uid: 'u1' })).toBe(text('?', 'u1'));
  });
});
