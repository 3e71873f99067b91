/**
 * Which stored blobs `wsmigrate backups prune` may delete. Pure: the caller lists the store and the
 * running workflows. A blob is kept when in doubt: deleting the only copy of a workspace's
 * pre-migration state is the one mistake retention must never make.
 */
export interface RetentionRecord {
  kind: string;
  workspace?: string;
  workflowId?: string;
  storedAt: string;
}

export interface RetentionBlob {
  ref: string;
  sha256: string;
  lastModified: string;
  records: RetentionRecord[];
}

export interface RunningWorkflow {
  workflowId: string;
  /** owner/name when the id is a workspace migration's. */
  workspace?: string;
}

export type PruneDecision = { ref: string; sha256: string; storedAt: string; action: 'delete' } | { ref: string; sha256: string; storedAt: string; action: 'keep'; reason: string };

const DURATION = /^(\d+)(d|h|m)$/;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

/** '30d' → ms; a clear error otherwise. */
export function parseAge(text: string): number {
  const m = DURATION.exec(text.trim());
  if (!m || Number(m[1]) === 0) throw new Error(`--older-than must be a positive whole number of days, hours or minutes, e.g. 30d, 12h, 90m (got ${JSON.stringify(text)})`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** `wsmigrate/<template>/<owner>/<workspace>` → owner/workspace. */
export function workspaceOfWorkflowId(workflowId: string): string | undefined {
  const parts = workflowId.split('/');
  return parts.length === 4 && parts[0] === 'wsmigrate' ? `${parts[2]}/${parts[3]}` : undefined;
}

/** When it was last backed up (its newest record); the object's own time only when it has no record. */
function newestTime(blob: RetentionBlob): string {
  if (blob.records.length === 0) return blob.lastModified;
  return blob.records.map((r) => r.storedAt).reduce((a, b) => (a > b ? a : b));
}

export function planPrune(blobs: RetentionBlob[], running: RunningWorkflow[], now: Date, olderThanMs: number): PruneDecision[] {
  const runningIds = new Set(running.map((r) => r.workflowId));
  const runningByWorkspace = new Map(running.filter((r) => r.workspace).map((r) => [r.workspace as string, r.workflowId]));
  // The newest backup of each workspace, by when it was backed up.
  const newest = new Map<string, { sha256: string; at: string }>();
  for (const blob of blobs) {
    for (const r of blob.records) {
      if (r.kind !== 'state-backup' || !r.workspace) continue;
      const current = newest.get(r.workspace);
      if (!current || r.storedAt > current.at) newest.set(r.workspace, { sha256: blob.sha256, at: r.storedAt });
    }
  }
  const cutoff = now.getTime() - olderThanMs;
  return blobs.map((blob): PruneDecision => {
    const storedAt = newestTime(blob);
    const keep = (reason: string): PruneDecision => ({ ref: blob.ref, sha256: blob.sha256, storedAt, action: 'keep', reason });
    if (blob.records.length === 0) return keep('no record of who wrote it (stored before wsmigrate kept records); delete it by hand if you are sure');
    if (blob.records.some((r) => r.kind === 'template-lock')) return keep("wsmigrate's mark that it switched on the template's require_active_version; removed when wsmigrate gives the setting back (as each fleet run ends)");
    const ownRun = blob.records.find((r) => r.workflowId && runningIds.has(r.workflowId));
    if (ownRun) return keep(`its migration ${ownRun.workflowId} has not ended`);
    const busy = blob.records.find((r) => r.workspace && runningByWorkspace.has(r.workspace));
    if (busy) return keep(`a migration of ${busy.workspace} is running (${runningByWorkspace.get(busy.workspace as string)})`);
    const newestOf = blob.records.find((r) => r.workspace && newest.get(r.workspace)?.sha256 === blob.sha256);
    if (newestOf) return keep(`the newest backup of ${newestOf.workspace}`);
    if (Date.parse(storedAt) > cutoff) return keep(`younger than the cut-off (stored ${storedAt})`);
    return { ref: blob.ref, sha256: blob.sha256, storedAt, action: 'delete' };
  });
}
