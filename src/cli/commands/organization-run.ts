import { InputError } from '../../domain/migration-input';
import type { Logger } from '../../adapters/logging/logger';
import { organizationInputFromOptions } from '../organization-options';
import { runIdOf, withTemporal, type Client } from '../with-temporal';
import { CliError, EXIT, exitCodeOfFailureType, type CliIo } from '../io';

/** A deployment-wide run has this id prefix; `fleet status` shows it per template. */
export const ORGANIZATION_RUN_PREFIX = 'wsmigrate-org/';

/** `fleet start --org coder --all-templates` (or several --template): starts migrateOrganization. */
export async function startOrganizationRun(io: CliIo, o: Record<string, unknown>, log: Logger): Promise<void> {
  if (o.version) throw new CliError('--version names one template\'s _v1 version; with --all-templates or several --template each template is migrated first, so leave --version out', EXIT.usage);
  const { loadConfig } = await import('../../config/env');
  const input = organizationInputFromOptions(o, loadConfig().approvers);
  const { startOrganizationMigration } = await import('../../client/organization');
  await withTemporal(async (client, taskQueue) => {
    let handle;
    try {
      handle = await startOrganizationMigration(client, input, { taskQueue });
    } catch (err) {
      if (err instanceof InputError) throw new CliError(err.message, EXIT.usage);
      throw err;
    }
    log.info({ workflowId: handle.workflowId, runId: runIdOf(handle), taskQueue }, 'workflow started');
    if (o.json && !o.wait) return io.out(JSON.stringify({ workflowId: handle.workflowId }));
    if (!o.json) {
      io.out(handle.workflowId);
      io.out(`  status:  wsmigrate fleet status ${handle.workflowId}`);
      io.out(`  pause:   wsmigrate fleet pause ${handle.workflowId}`);
      io.out(`  the canaries of every template wait at one gate: wsmigrate approve ${handle.workflowId} --approver <you>`);
    }
    if (o.wait) {
      const code = await waitForOrganization(client, io, handle.workflowId, Boolean(o.json));
      if (code !== EXIT.ok) throw new CliError(`organization run ${handle.workflowId} did not migrate everything`, code);
    }
  }, log);
}

/** Prints a line whenever the run's status changes, then the final per-template table. */
export async function waitForOrganization(client: Client, io: CliIo, workflowId: string, json: boolean, pollMs = 2000): Promise<number> {
  const { organizationStatus, organizationStatusText } = await import('../../client/organization');
  let last = '';
  for (;;) {
    const s = await organizationStatus(client, workflowId);
    const text = organizationStatusText(s);
    if (!json && text !== last) io.out(text);
    last = text;
    if (!s.progress) {
      if (json) io.out(JSON.stringify(s, null, 2));
      const r = s.result;
      if (!r) return exitCodeOfFailureType(s.failureType);
      return r.phase === 'done' && r.summary.failed + r.summary.needsAttention + r.summary.restored === 0 ? EXIT.ok : EXIT.denied;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
