import type { MigrationStatus } from '../client/migrations';

/**
 * A template run's pushed version, and the command that takes it: the id is what every later step
 * needs (`--version`), and without it `status` said only "done".
 */
export function templateVersionLines(workflowId: string, detail: MigrationStatus | undefined): string[] {
  if (!detail || !('newVersionId' in detail) || !detail.newVersionId) return [];
  const id = detail.newVersionId;
  const [, organization, template] = /^wsmigrate-template\/([^/]+)\/(.+)$/.exec(workflowId) ?? [];
  const next = organization && template ? `wsmigrate fleet start --org ${organization} --template ${template} --version ${id}` : `--version ${id}`;
  return [`  new version: ${detail.report?.versionName ?? '?'} (${id})`, `    next: ${next}`];
}
