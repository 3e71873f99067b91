// Records this version's replay fixtures (test/workflows/fixtures/histories/*.json): each workflow run
// through its main paths on the simulator and a real dev server. Run it when cutting a release
// (`make record-histories`); from then on, test/workflows/replay.test.ts holds the next version to them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer } from '../src/adapters/temporal-dev-server';
import { temporalCliPath } from '../src/config/tools';
import { createMigrationEnv } from '../test/workflows/fixtures/migration-env';
import { recordHistories } from '../test/workflows/fixtures/record-histories';

async function main(): Promise<void> {
  const server = await startDevServer({ temporalBin: temporalCliPath() });
  process.env.TEMPORAL_ADDRESS = server.address;
  const env = await createMigrationEnv({ workspaces: 5 });
  const worker = await env.startWorker();
  try {
    const dir = join(__dirname, '..', 'test', 'workflows', 'fixtures', 'histories');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const h of await recordHistories(env)) {
      const { name, ...fixture } = h;
      writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(fixture, null, 1)}\n`);
      console.log(`recorded ${name} (${h.workflowType}, ${h.events.length} events, ${h.events[h.events.length - 1]})`);
    }
  } finally {
    await worker.stop();
    await env.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
