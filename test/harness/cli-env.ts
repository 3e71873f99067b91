import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

export interface CliEnv {
  readonly env: MigrationEnv;
  /** The template's migrated (_v1) version id. */
  readonly version: string;
}

/**
 * For a describe block that runs the CLI against Temporal: a simulator with `workspaces`, a worker,
 * the template migrated, and the CLI pointed at the worker's task queue. The environment variables
 * are given back and everything is closed after the block.
 */
export function cliAgainstWorker(workspaces: number): CliEnv {
  const made: { env?: MigrationEnv; version?: string } = {};
  const saved = { ...process.env };
  beforeAll(async () => {
    made.env = await createMigrationEnv({ workspaces });
    await made.env.startWorker();
    made.version = (await made.env.migrateTemplate()).versionId;
    process.env.WSMIGRATE_TASK_QUEUE = made.env.taskQueue;
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await made.env?.close();
  });
  return {
    get env() {
      if (!made.env) throw new Error('cliAgainstWorker: the environment is made in beforeAll; use it inside a test');
      return made.env;
    },
    get version() {
      if (made.version === undefined) throw new Error('cliAgainstWorker: the version is known after beforeAll; use it inside a test');
      return made.version;
    },
  };
}
