import { isTerraformSource, readTar, type ArchiveFile } from '../adapters/template-tar';
import type { TemplateFile } from '../domain/template-rewrite';
import { coderStep } from './failures';
import type { CoderApi } from './ports';

export interface TemplateSource {
  fileId: string;
  archive: ArchiveFile[];
  /** Terraform files decoded as text, for the rewriter and the planner. */
  terraform: TemplateFile[];
}

export type LoadTemplateSource = (versionId: string, subject: string) => Promise<TemplateSource>;

/** Downloads and unpacks a template version's source (the tar whose id is the version's job.file_id). */
async function downloadTemplateSource(coder: CoderApi, versionId: string, subject: string): Promise<TemplateSource> {
  const version = await coderStep('read template source', subject, () => coder.templateVersion(versionId));
  const fileId = version.job.file_id;
  const tar = await coderStep('read template source', subject, () => coder.downloadFile(fileId));
  const archive = await readTar(tar);
  const terraform = archive.filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
  return { fileId, archive, terraform };
}

/**
 * A template version's source never changes, and a fleet verifies hundreds of workspaces against
 * the same one: keep the last few per worker instead of downloading the tar for each workspace.
 * Failed downloads are not kept, so a retry asks Coder again.
 */
export function cachedTemplateSourceLoader(coder: CoderApi, maxEntries = 8): LoadTemplateSource {
  const cache = new Map<string, Promise<TemplateSource>>();
  return (versionId, subject) => {
    const hit = cache.get(versionId);
    if (hit) {
      cache.delete(versionId);
      cache.set(versionId, hit); // most recently used last
      return hit;
    }
    const loading = downloadTemplateSource(coder, versionId, subject);
    cache.set(versionId, loading);
    loading.catch(() => cache.delete(versionId));
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return loading;
  };
}
