import type { Workspace, WorkspaceBuild } from '../../src/adapters/coder';
import { CoderClient } from '../../src/adapters/coder';
import { formatScanReport, scanFleet } from '../../src/client/fleet-scan';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';

const VERSION = '11111111-1111-4111-8111-111111111111';

function build(i: number): WorkspaceBuild {
  return {
    id: `b-${i}`,
    build_number: 1,
    workspace_id: `w-${i}`,
    workspace_name: `ws${i}`,
    template_version_id: VERSION,
    template_version_name: 'v1',
    transition: 'start',
    status: 'running',
    job: { id: `j-${i}`, status: 'succeeded', file_id: 'f', created_at: '2026-11-30T10:00:00Z' },
    resources: [],
  } as WorkspaceBuild;
}

const state = JSON.stringify({
  version: 4,
  terraform_version: '1.9.0',
  serial: 1,
  lineage: 'l',
  outputs: {},
  resources: [{ mode: 'managed', type: 'kubernetes_persistent_volume_claim', name: 'home', provider: 'p', instances: [{ schema_version: 0, attributes: { id: 'x', metadata: [{ uid: 'u' }] } }] }],
});

describe('scanFleet', () => {
  it('reads at most --concurrency workspaces at a time and reports progress for each', async () => {
    const workspaces = Array.from({ length: 20 }, (_, i) => ({ id: `w-${i}`, name: `ws${i}`, owner_name: 'o', owner_id: 'u-o', template_active_version_id: VERSION, latest_build: build(i) }) as unknown as Workspace);
    let inFlight = 0;
    let maxInFlight = 0;
    const tar = await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    const coder = {
      workspacesOfTemplate: async () => workspaces,
      workspaceBuilds: async (id: string) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return [build(Number(id.slice(2)))];
      },
      getWorkspaceBuildState: async () => Buffer.from(state),
      workspaceBuildLogs: async () => [],
      templateVersion: async () => ({ job: { file_id: 'f' } }),
      template: async () => ({}),
      downloadFile: async () => tar,
    } as unknown as Parameters<typeof scanFleet>[0];
    const progress: string[] = [];
    const report = await scanFleet(coder, { template: 't', concurrency: 3, onProgress: (d, t) => progress.push(`${d}/${t}`) });
    expect(maxInFlight).toBe(3);
    expect(progress).toHaveLength(20);
    expect(progress[19]).toBe('20/20');
    expect(report.counts).toEqual({ unmigrated: 20, migrated: 0, damaged: 0, busy: 0, unreadable: 0 });
    expect(formatScanReport(report)[1]).toMatch(/^WORKSPACE\s+HEALTH\s+VERSION\s+LATEST BUILD\s+DETAIL$/);
  });

  it('a workspace whose builds cannot be listed is unreadable, with the reason', async () => {
    const ws = { id: 'w-0', name: 'ws0', owner_name: 'o', owner_id: 'u-o', template_active_version_id: VERSION, latest_build: build(0) } as unknown as Workspace;
    const tar = await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    const coder = {
      workspacesOfTemplate: async () => [ws],
      workspaceBuilds: async () => {
        throw new Error('Coder answered 404 listing builds');
      },
      templateVersion: async () => ({ job: { file_id: 'f' } }),
      downloadFile: async () => tar,
    } as unknown as Parameters<typeof scanFleet>[0];
    const report = await scanFleet(coder, { template: 't' });
    expect(report.workspaces[0]).toMatchObject({ workspace: 'o/ws0', health: 'unreadable', reason: 'could not read its builds: Coder answered 404 listing builds' });
  });
});

describe("scanFleet on a template with Premium's prebuilt workspaces", () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, prebuilds: 2, licence: 'premium', buildLatencyMs: 10, seed: 4 });
  });
  afterAll(async () => sim?.close());

  it('lists the prebuilt ones apart, unclassified and named as left to Coder, and classifies only the people’s', async () => {
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const report = await scanFleet(coder, { template: sim.template.name, organization: 'coder' });
    const people = sim.workspaces().filter((w) => w.owner !== 'prebuilds');
    expect(report.workspaces.map((w) => w.workspace).sort()).toEqual(people.map((w) => `${w.owner}/${w.name}`).sort());
    expect(report.counts).toMatchObject({ unmigrated: 2 });
    expect(report.prebuilt.map((p) => p.workspace)).toEqual(sim.workspaces().filter((w) => w.owner === 'prebuilds').map((w) => `prebuilds/${w.name}`).sort());
    expect(report.prebuilt).toHaveLength(2);
    const lines = formatScanReport(report);
    expect(lines[0]).toBe(`template ${sim.template.name}: 2 workspace(s): unmigrated 2, migrated 0, damaged 0, busy 0, unreadable 0`);
    expect(lines.at(-1)).toMatch(/^2 prebuilt workspace\(s\) left to Coder \(nobody's data; its prebuilds reconciler replaces them on the active version; a fleet never migrates them\): prebuilds\//);
  });
});
