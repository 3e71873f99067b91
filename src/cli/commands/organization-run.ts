import type { Logger } from '../../adapters/logging/logger';
import { organizationInputFromOptions } from '../organization-options';
import type { Client } from '../with-temporal';
import type { OrganizationResult } from '../../contracts/migrate-organization';
import { notMigratedCount } from '../../domain/fleet-summary';
import { startFleetRun } from '../start-fleet-run';
import { CliError, EXIT, exitCodeOfFailureType, type CliIo } from '../io';

/** A deployment-wide run has this id prefix; `fleet status` shows it per template. */
export const ORGANIZATION_RUN_PREFIX = 'wsmigrate-org/';

/** `fleet start --org coder --all-templates` (or several --template): starts migrateOrganization. */
export async function startOrganizationRun(io: CliIo, o: Record<string, unknown>, log: Logger): Promise<void> {
  if (o.version !== undefined) throw new CliError('--version names one template\'s _v1 version; with --all-templates or several --template each template is migrated first, so leave --version out', EXIT.usage);
  const { loadConfig } = await import('../../config/env');
  const input = organizationInputFromOptions(o, loadConfig().approvers);
  const { startOrganizationMigration } = await import('../../client/organization');
  await startFleetRun(io, log, o, {
    start: (client, taskQueue) => startOrganizationMigration(client, input, { taskQueue }),
    // With --approval none no gate waits: a hint to approve would send the SRE looking for a gate that never opens.
    hints: (workflowId) =>
      input.approval?.policy === 'none'
        ? [`  --approval none: no gate waits; the canaries of every template are told, then the rest start (wsmigrate fleet status ${workflowId})`]
        : [`  the canaries of every template wait at one gate: wsmigrate approve ${workflowId} --approver <you>`],
    waitForEnd: (client, workflowId) => waitForOrganization(client, io, workflowId, Boolean(o.json)),
    noun: 'organization run',
  });
}

/**
 * How an ended organization run exits: 0 only when every template it took on ended done and every
 * workspace was migrated. A template whose fleet failed (refused before any change: its target
 * version not active, a template step that failed) left its workspaces unmigrated, as a failed
 * workspace does: 3, not 0, though no workspace counts as failed.
 */
export function organizationExitCode(r: Pick<OrganizationResult, 'phase' | 'summary' | 'templates'>): number {
  const templateFailed = r.templates.some((t) => t.state === 'failed' || t.state === 'cancelled');
  return r.phase === 'done' && notMigratedCount(r.summary) === 0 && !templateFailed ? EXIT.ok : EXIT.denied;
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
    // No worker answers it now (a restart, a killed pod): it has not ended, so keep waiting.
    if (!s.progress && !s.unanswered) {
      if (json) io.out(JSON.stringify(s, null, 2));
      if (!s.result) return exitCodeOfFailureType(s.failureType);
      return organizationExitCode(s.result);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
