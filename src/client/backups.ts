import type { Client } from '@temporalio/client';
import type { BlobStore } from '../adapters/blob-store';
import { planPrune, workspaceOfWorkflowId, type PruneDecision, type RunningWorkflow } from '../domain/backup-retention';

/** Every workflow still running in the namespace: its blobs, and its workspace's, are not pruned. */
export async function runningWorkflows(client: Client): Promise<RunningWorkflow[]> {
  const out: RunningWorkflow[] = [];
  for await (const w of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
    out.push({ workflowId: w.workflowId, ...(workspaceOfWorkflowId(w.workflowId) ? { workspace: workspaceOfWorkflowId(w.workflowId) } : {}) });
  }
  return out;
}

export interface PruneResult {
  decisions: PruneDecision[];
  deleted: string[];
}

/**
 * Plans the prune from the store and Temporal; with `apply`, plans again from fresh listings and
 * deletes only what both plans agree on, so a migration that started meanwhile keeps its blobs.
 */
export async function pruneBackups(store: BlobStore, listRunning: () => Promise<RunningWorkflow[]>, opts: { olderThanMs: number; apply: boolean; now?: () => Date }): Promise<PruneResult> {
  const now = opts.now ?? (() => new Date());
  const plan = async () => planPrune(await store.list(), await listRunning(), now(), opts.olderThanMs);
  const decisions = await plan();
  if (!opts.apply) return { decisions, deleted: [] };
  const again = new Map((await plan()).map((d) => [d.sha256, d]));
  const deleted: string[] = [];
  const final = decisions.map((d): PruneDecision => {
    const second = again.get(d.sha256);
    if (d.action === 'delete' && second?.action !== 'delete') {
      return { ...d, action: 'keep', reason: second?.action === 'keep' ? second.reason : 'changed while pruning' };
    }
    return d;
  });
  for (const d of final) {
    if (d.action !== 'delete') continue;
    await store.remove(d.sha256);
    deleted.push(d.ref);
  }
  return { decisions: final, deleted };
}
