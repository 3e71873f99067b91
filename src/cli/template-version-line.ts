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
  // Pushed but not promoted yet: a fleet refuses a version that is not active, so the next step is the gate.
  const waiting = detail.phase === 'awaiting-approval' || detail.phase === 'pushing' || detail.phase === 'promoting';
  return [`  new version: ${detail.report?.versionName ?? '?'} (${id})`, `    next: ${waiting ? `once this run has promoted it (it is not active yet, and a fleet refuses a version that is not): ${next}` : next}`];
}
