import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerDemoCommands } from '../../src/cli/commands/demo';
import { freeLoopbackPort } from '../../src/adapters/temporal-dev-server';
import { Client, Connection } from '@temporalio/client';
import { migrationStatus } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { FleetProgress } from '../../src/contracts/migrate-fleet';
import { runCommand } from '../harness/cli';

describe('wsmigrate demo', () => {
  it("brings up its own dev server with the Web UI and runs the product's migrateFleet: template, canary, gate, the rest; no PVC lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-demo-'));
    try {
      const uiPort = await freeLoopbackPort();
      const r = await runCommand(registerDemoCommands, 'demo', '--workspaces', '5', '--canary', '2', '--concurrency', '3', '--port', '0', '--ui-port', String(uiPort), '--dir', dir, '--exit-when-done');
      expect(r.exitCode).toBe(0);
      expect(r.out).toContain(`Temporal Web UI:  http://127.0.0.1:${uiPort}`);
      expect(r.out).toMatch(/wsmigrate-fleet\/coder\/k8s-dev/);
      // What paces the rest is said as it is: the demo's 20 daemons, not "3 at a time".
      expect(r.out).toContain("the rest paced by Coder's 20 provisioner daemon(s): our builds keep to half of them (10 at once), up to 3 migration(s) run at once (--concurrency 3)");
      expect(r.out).not.toContain("the rest 3 at a time");
      // The gates, in order: the template's promote, the canary's fleet-continue, the archive.
      const gates = [...r.out.matchAll(/approved '([a-z-]+)' as demo-sre/g)].map((m) => m[1]);
      expect(gates).toEqual(['template-promote', 'fleet-continue', 'fleet-archive']);
      expect(r.out).toMatch(/waiting for approval of 'fleet-continue': Canary: 2 of 2 ok/);
      expect(r.out).toMatch(/^migrated\s+5$/m);
      expect(r.out).toMatch(/^failed\s+0$/m);
      expect(r.out).toMatch(/archived old version\(s\): /);
      const rows = r.out.split('\n').filter((l) => /^\S+\/\S+\s+\S+\s+\S+ -> /.test(l));
      expect(rows).toHaveLength(5);
      for (const row of rows) expect(row).toMatch(/\smigrated\s+[0-9a-f-]{36} -> kept$/);
      expect(r.out).toContain('PVCs lost: 0');
      expect(r.out).toMatch(/^State PUTs: 0 \(each migrated state travelled inside the one build/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('with --interactive it approves nothing itself: a person approves each gate from outside (here: the client, as `wsmigrate approve` does)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-demo-'));
    const port = await freeLoopbackPort();
    const demo = runCommand(registerDemoCommands, 'demo', '--workspaces', '3', '--canary', '1', '--concurrency', '2', '--port', String(port), '--ui-port', String(await freeLoopbackPort()), '--dir', dir, '--exit-when-done', '--interactive');
    let connection: Connection | undefined;
    try {
      const approved: string[] = [];
      const firstSeen = new Map<string, number>();
      let done = false;
      void demo.finally(() => (done = true));
      while (!done && approved.length < 3) {
        try {
          connection ??= await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 });
          const client = new Client({ connection });
          const fleet = (await migrationStatus(client, 'wsmigrate-fleet/coder/k8s-dev')) as FleetProgress;
          const target = fleet.pendingApproval ? 'wsmigrate-fleet/coder/k8s-dev' : fleet.childApprovals.find((a) => a.workflowId.startsWith('wsmigrate-template/'))?.workflowId;
          // A person reads the demo's "by hand:" line first: answer a gate only once the demo (polling every 0.5 s) has shown it.
          const key = target && `${target}:${fleet.pendingApproval?.gateId ?? fleet.childApprovals.find((a) => a.workflowId === target)?.gateId}`;
          if (key && !firstSeen.has(key)) firstSeen.set(key, Date.now());
          if (target && key && Date.now() - (firstSeen.get(key) ?? Date.now()) >= 1500) {
            const r = await decide(client, target, 'approve', { approver: 'demo-sre', comment: 'a person' });
            approved.push(r.gateId);
          }
        } catch {
          // not up yet, or between gates
        }
        await new Promise((r) => setTimeout(r, 300));
      }
      const r = await demo;
      expect(r.exitCode).toBe(0);
      expect(approved).toEqual(['template-promote', 'fleet-continue', 'fleet-archive']);
      expect(r.out).not.toMatch(/approved '[a-z-]+' as demo-sre/); // the demo itself approved nothing
      // On a port other than the default, the pasted command must reach this demo's Temporal.
      expect(r.out).toMatch(new RegExp(`by hand: TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port} wsmigrate approve wsmigrate-fleet/coder/k8s-dev --approver demo-sre`));
      expect(r.out).toMatch(/^migrated\s+3$/m);
      expect(r.out).toContain('PVCs lost: 0');
    } finally {
      await connection?.close();
      await demo.catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('--zero-touch: a fleet that migrates itself; running ones by a pinned start, stopped ones at their owner\'s start; every PVC uid kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-demo-zt-'));
    try {
      const uiPort = await freeLoopbackPort();
      const r = await runCommand(registerDemoCommands, 'demo', '--zero-touch', '--workspaces', '6', '--canary', '1', '--concurrency', '3', '--port', '0', '--ui-port', String(uiPort), '--dir', dir, '--exit-when-done');
      expect(r.exitCode).toBe(0);
      expect(r.out).toMatch(/2 stopped workspace\(s\) are left alone/);
      expect(r.out).toMatch(/migrated by the runbook \(pinned start, then checked\): 4/);
      expect(r.out).toMatch(/still waiting for a build .*: 2/);
      const rows = r.out.split('\n').filter((l) => /^\S+\/\S+\s+.+ [0-9a-f-]{36} -> /.test(l));
      expect(rows).toHaveLength(6);
      expect(rows.filter((row) => /\smigrated itself\s/.test(row))).toHaveLength(2);
      expect(rows.filter((row) => /\spinned start\s/.test(row))).toHaveLength(4);
      for (const row of rows) expect(row).toMatch(/ -> kept$/);
      expect(r.out).toContain('PVCs lost: 0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
