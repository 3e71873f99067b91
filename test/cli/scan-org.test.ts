import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { OrganizationScanReport } from '../../src/client/org-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';

describe('wsmigrate scan --org: every template of an organization', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerScanCommand, 'scan', ...args);

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, seed: 21, moreTemplates: [{ name: 'k8s-gpu', workspaces: 2 }, { name: 'team-tools', workspaces: 2, versioned: true }] });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
  });
  afterAll(async () => {
    process.env = saved;
    await sim.close();
  });

  it('lists each template: whether its active version uses deprecated types, its workspaces by health; reads only', async () => {
    const before = sim.requestLog().length;
    const r = await run('--org', 'coder', '--json');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(sim.requestLog().slice(before).filter((e) => e.method !== 'GET')).toEqual([]);
    const report = JSON.parse(r.out) as OrganizationScanReport;
    const rows = Object.fromEntries(report.templates.map((t) => [t.template, t]));
    expect(Object.keys(rows).sort()).toEqual(['k8s-dev', 'k8s-gpu', 'team-tools']);
    expect(rows['k8s-dev']).toMatchObject({ needsMigration: true, deprecatedTypes: ['kubernetes_deployment', 'kubernetes_persistent_volume_claim'], counts: { unmigrated: 3, migrated: 0 } });
    expect(rows['k8s-gpu']).toMatchObject({ needsMigration: true, counts: { unmigrated: 2 } });
    expect(rows['team-tools']).toMatchObject({ needsMigration: false, deprecatedTypes: [], counts: { unmigrated: 0, migrated: 2 } });
  });

  it('prints one row per template for humans, the _v1 one as nothing to do', async () => {
    const r = await run('--org', 'coder');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toMatch(/organization coder: 3 template\(s\), 2 to migrate/);
    expect(r.out).toMatch(/team-tools\s+\S+\s+nothing to do\s+0\s+2/);
    expect(r.out).toMatch(/k8s-gpu\s+\S+\s+migrate \(kubernetes_deployment, kubernetes_persistent_volume_claim\)\s+2\s+0/);
  });

  it('refuses a scan with neither --template nor --org, saying what to pass', async () => {
    const r = await run();
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/scan needs --template <name>, or --org <organization>/);
  });
});
