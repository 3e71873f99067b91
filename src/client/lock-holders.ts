import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { MarkHolder } from '../domain/lock-keeper';
import { runningRunsOnTemplate } from './fleet-conflicts';

const CLOSED: Record<string, string> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed out',
};

/** What the lock keeper asks Temporal: whether the runs a mark names still run, and which runs migrate the template. */
export interface LockHolders {
  holder(workflowId: string): Promise<MarkHolder>;
  /** Throws when Temporal cannot be asked. */
  claimants(organization: string, template: string): Promise<string[]>;
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}

export function temporalLockHolders(client: Client): LockHolders {
  return {
    async holder(workflowId) {
      try {
        // The id's latest run: a run that continued as new answers RUNNING for its new run.
        const status = (await client.workflow.getHandle(workflowId).describe()).status.name;
        const how = CLOSED[status];
        return how ? { workflowId, state: 'closed', how } : { workflowId, state: 'running' };
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { workflowId, state: 'closed', how: 'no longer known to Temporal (its retention expired)' };
        return { workflowId, state: 'unknown', error: errorText(err) };
      }
    },
    claimants: (organization, template) => runningRunsOnTemplate(client, organization, template),
  };
}
