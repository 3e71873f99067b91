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

/** Downloads and unpacks a template version's source (the tar whose id is the version's job.file_id). */
export async function loadTemplateSource(coder: CoderApi, versionId: string, subject: string): Promise<TemplateSource> {
  const version = await coderStep('read template source', subject, () => coder.templateVersion(versionId));
  const fileId = version.job.file_id;
  const tar = await coderStep('read template source', subject, () => coder.downloadFile(fileId));
  const archive = await readTar(tar);
  const terraform = archive.filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
  return { fileId, archive, terraform };
}
