import { WorkflowNotFoundError } from '@temporalio/common';

const ORGANIZATION_PREFIX = 'wsmigrate-org/';

/** Where to look for the right id, by the kind of run the id was meant to name. */
function whereToLook(workflowId: string): string {
  if (workflowId.startsWith('wsmigrate-fleet/')) {
    return "a fleet's id is wsmigrate-fleet/<org>/<template> (a schedule's windows add -<time>: 'wsmigrate schedule describe <name>' lists them); " +
      `'temporal workflow list --query "WorkflowType = 'migrateFleet'"' lists every fleet`;
  }
  if (workflowId.startsWith(ORGANIZATION_PREFIX)) {
    return `an organization's run is ${ORGANIZATION_PREFIX}<org> (a schedule's windows add -<time>); ` +
      `'temporal workflow list --query "WorkflowType = 'migrateOrganization'"' lists them`;
  }
  return "'wsmigrate approvals' lists the runs waiting for a human, 'temporal workflow list' all";
}

/**
 * Temporal's "workflow not found for ID: …" as a sentence an operator can act on: a typo'd id, or
 * the right id in another namespace. Anything else is rethrown as it is.
 */
export function rethrowNoRun(workflowId: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof WorkflowNotFoundError) {
      throw new Error(`no run with workflow id '${workflowId}' in this namespace (TEMPORAL_NAMESPACE); check the id: ${whereToLook(workflowId)}`);
    }
    throw err;
  };
}
