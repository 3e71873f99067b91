import type { MigrationStatus } from '../client/migrations';

/**
 * A template run's pushed version, and the command that takes it: the id is what every later step
 * needs (`--version`), and without it `status` said only "done".
 */
export function templateVersionLines(workflowId: string, detail: MigrationStatus | undefined, ended = false): string[] {
  if (!detail || !('newVersionId' in detail) || !detail.newVersionId) return [];
  const id = detail.newVersionId;
  const [, organization, template] = /^wsmigrate-template\/([^/]+)\/(.+)$/.exec(workflowId) ?? [];
  const next = organization && template ? `wsmigrate fleet start --org ${organization} --template ${template} --version ${id}` : `--version ${id}`;
  // Pushed but not promoted yet: a fleet refuses a version that is not active, so the next step is the gate.
  const unpromoted = detail.phase === 'awaiting-approval' || detail.phase === 'pushing' || detail.phase === 'promoting';
  const name = detail.report?.versionName;
  const line = !unpromoted
    ? next
    : ended
      ? // Cancelled, rejected or failed before its promote: this run will never promote it.
        `this run ended before promoting it (it is not active, and a fleet refuses a version that is not): promote it first (coder templates versions promote --template ${template ?? '<template>'} --template-version ${name ?? id}), then: ${next}`
      : `once this run has promoted it (it is not active yet, and a fleet refuses a version that is not): ${next}`;
  return [`  new version: ${name ?? '?'} (${id})`, `    next: ${line}`];
}

/**
 * After `migrate template --wait`, on stderr (stdout holds the result's JSON for scripts): the command
 * that takes the version, or, for a version pushed with --no-promote, the promote that must come first.
 */
export function templateNextStep(workflowId: string, result: { outcome?: string; versionId?: string; versionName?: string }): string | undefined {
  const [, organization, template] = /^wsmigrate-template\/([^/]+)\/(.+)$/.exec(workflowId) ?? [];
  if (!organization || !template || !result.versionId || result.outcome === 'dry-run') return undefined;
  const fleet = `wsmigrate fleet start --org ${organization} --template ${template} --version ${result.versionId}`;
  if (result.outcome === 'pushed') {
    return `next: promote it first (a fleet refuses a version that is not active): coder templates versions promote --template ${template} --template-version ${result.versionName ?? result.versionId}; then: ${fleet}`;
  }
  return `next: ${fleet}`;
}
