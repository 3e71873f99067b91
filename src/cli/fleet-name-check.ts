import type { FleetStatus } from '../client/fleet';
import type { CliIo } from './io';
import type { Client } from './with-temporal';

/**
 * `fleet start` without --wait and without Coder's URL in this shell: the fleet checks its
 * --owner/--exclude names itself before it changes anything, so the command waits (bounded) for
 * that check, and a typo still ends in the fleet's refusal and exit 2 instead of a started fleet
 * and exit 0. Without a worker nothing is checked: the command says so and leaves the fleet queued.
 */
export async function waitForFleetNameCheck(
  client: Client,
  io: CliIo,
  workflowId: string,
  opts: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const { fleetStatus } = await import('../client/fleet');
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    let status: FleetStatus | undefined;
    let unanswered: unknown;
    try {
      status = await fleetStatus(client, workflowId);
    } catch (err) {
      // No worker has run its first workflow task yet: the query cannot be answered until one does.
      unanswered = err;
    }
    if (status?.progress?.namesChecked || (status && status.phase !== 'running' && !status.progress && !status.unanswered)) {
      if (status.phase === 'failed') await client.workflow.getHandle(workflowId).result();
      return;
    }
    if (Date.now() >= deadline) {
      io.err(
        `the fleet checks the --owner and --exclude names before it changes anything, and has not yet (is a worker running on its task queue?` +
          `${unanswered ? ` its status query: ${(unanswered as Error).message}` : ''}): 'wsmigrate fleet status ${workflowId}' shows whether it refused them`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 500));
  }
}
