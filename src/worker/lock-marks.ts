import type { CoderApi } from '../activities/ports';
import { formatBlobRef } from '../domain/blob-ref';
import { templateLockMarkText } from '../domain/template-lock-mark';
import { sha256Hex } from '../adapters/hash';
import type { BlobStore } from '../ports/blob-store';

/** One of wsmigrate's `template-lock` marks on a template whose require_active_version is on. */
export interface LockMark {
  /** `organization/template`, as the runs that hold it named it. */
  template: string;
  /** Every run the mark's records name. */
  workflowIds: string[];
}

/**
 * The marks the lock keeper must judge, found from Coder, not by listing the blob store: only a
 * template whose require_active_version is on can hold one that matters, and the mark's content
 * address names its template. So a sweep costs a read of each organization's templates and one
 * lookup per template that requires its active version, however many backups the store holds (a
 * list of an S3 store reads every backup's record: thousands of requests a minute at fleet scale).
 * The organizations are those the worker's token is a member of (codersdk.User organization_ids).
 */
export function coderLockMarks(deps: { coder: Pick<CoderApi, 'currentUser' | 'templatesOfOrganization'>; blobs: Pick<BlobStore, 'location' | 'has' | 'records'> }): () => Promise<LockMark[]> {
  return async () => {
    const me = await deps.coder.currentUser();
    // A Coder without organization_ids (older than multi-organization) has one: `default` names it.
    const organizations = me.organization_ids && me.organization_ids.length > 0 ? me.organization_ids : ['default'];
    const marks: LockMark[] = [];
    for (const organization of organizations) {
      for (const t of await deps.coder.templatesOfOrganization(organization)) {
        if (!t.require_active_version) continue;
        const sha = sha256Hex(Buffer.from(templateLockMarkText(t.id)));
        if (!(await deps.blobs.has(formatBlobRef(deps.blobs.location, sha)))) continue; // the operator's own setting
        const records = (await deps.blobs.records(sha)).filter((r) => r.kind === 'template-lock');
        // Coder's names now (a template renamed since the run is still given back), the run's as a fallback.
        const labelOrganization = records.find((r) => r.label?.includes('/'))?.label?.split('/')[0];
        marks.push({
          template: `${t.organization_name ?? labelOrganization ?? organization}/${t.name}`,
          workflowIds: [...new Set(records.flatMap((r) => (r.workflowId ? [r.workflowId] : [])))],
        });
      }
    }
    return marks;
  };
}
