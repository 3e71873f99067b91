import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerDemoCommands } from '../../src/cli/commands/demo';
import { freeLoopbackPort } from '../../src/adapters/temporal-dev-server';
import { runCommand } from '../harness/cli';

describe('wsmigrate demo', () => {
  it('brings up its own dev server with the Web UI, migrates every workspace, and loses no PVC', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-demo-'));
    try {
      const uiPort = await freeLoopbackPort();
      const r = await runCommand(registerDemoCommands, 'demo', '--workspaces', '3', '--port', '0', '--ui-port', String(uiPort), '--dir', dir, '--exit-when-done');
      expect(r.exitCode).toBe(0);
      expect(r.out).toContain(`Temporal Web UI:  http://127.0.0.1:${uiPort}`);
      expect(r.out).toMatch(/promoted: version wsmigrate-[0-9a-f]{12}/);
      expect(r.out).toMatch(/waiting for approval: Push the migrated state/);
      const rows = r.out.split('\n').filter((l) => /^\S+\/\S+\s+\S+\s+(yes|NO)$/.test(l));
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toMatch(/\smigrated\s+yes$/);
      expect(r.out).toContain('PVCs lost: 0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
