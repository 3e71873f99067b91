import type { Logger } from '../adapters/logging/logger';
import { InputError } from '../domain/migration-input';
import { CliError, EXIT, type CliIo } from './io';
import { runIdOf, withTemporal, type Client } from './with-temporal';
import { usageErrorOf } from './input-options';

export interface FleetRunStart {
  /** Starts the run; an InputError (a bad option) is a usage error. */
  start(client: Client, taskQueue: string): Promise<{ workflowId: string }>;
  /** Without --wait: what to wait for once it started (the fleet's own check of the names it was given). */
  afterStart?(client: Client, workflowId: string): Promise<void>;
  /** Lines said after the status and pause commands (not with --json). */
  hints?: (workflowId: string) => string[];
  /** With --wait: follows the run to its end and returns the exit code. */
  waitForEnd(client: Client, workflowId: string): Promise<number>;
  /** What the run is called when it did not migrate everything: `fleet`, `organization run`. */
  noun: string;
}

/** What `fleet start` says once a fleet or an organization run has started, and with --wait, how it ended. */
export async function startFleetRun(io: CliIo, log: Logger, o: { json?: unknown; wait?: unknown }, run: FleetRunStart): Promise<void> {
  await withTemporal(async (client, taskQueue) => {
    let handle;
    try {
      handle = await run.start(client, taskQueue);
    } catch (err) {
      if (err instanceof InputError) throw usageErrorOf(err);
      throw err;
    }
    log.info({ workflowId: handle.workflowId, runId: runIdOf(handle), taskQueue }, 'workflow started');
    if (!o.wait) await run.afterStart?.(client, handle.workflowId);
    if (o.json && !o.wait) return io.out(JSON.stringify({ workflowId: handle.workflowId }));
    if (!o.json) {
      io.out(handle.workflowId);
      io.out(`  status:  wsmigrate fleet status ${handle.workflowId}`);
      io.out(`  pause:   wsmigrate fleet pause ${handle.workflowId}`);
      for (const line of run.hints?.(handle.workflowId) ?? []) io.out(line);
    }
    if (o.wait) {
      const code = await run.waitForEnd(client, handle.workflowId);
      if (code !== EXIT.ok) throw new CliError(`${run.noun} ${handle.workflowId} did not migrate everything`, code);
    }
  }, log);
}
