import { describeMissingPermissions, permissionChecks, type PermissionScope } from '../domain/token-permissions';
import { coderStep, refuse } from './failures';
import type { CoderApi } from './ports';

/**
 * Refuses, before anything changes, a token that Coder says may not do every step of the runbook,
 * naming what is missing and which roles have it (Owner, Organization Admin).
 */
export async function refuseUnlessTokenMayMigrate(
  coder: Pick<CoderApi, 'authCheck'>,
  subject: string,
  scope: PermissionScope & { template: string; organization: string },
): Promise<void> {
  const answer = await coderStep('preflight', subject, () => coder.authCheck(permissionChecks(scope)));
  const missing = describeMissingPermissions(answer, scope);
  if (missing) throw refuse('preflight', subject, missing);
}
