import { isPrebuiltWorkspace } from '../../domain/prebuilt-workspaces';
import { deprecatedTypesIn } from '../../domain/template-deprecations';
import { isTerraformSource, readTar } from '../template-tar';
import type { CoderClient } from './client';
import { isCoderApiError } from './errors';

export interface OrganizationTemplate {
  name: string;
  activeVersionId: string;
  activeVersionName: string;
  /** Deprecated kubernetes types its active version declares. */
  deprecatedTypes: string[];
  /**
   * Workspaces not on the active version. With a `_v1` active version and none outdated there is
   * nothing to do; outdated ones may still hold deprecated types (a template promoted by an earlier,
   * unfinished run). Prebuilt workspaces are not counted: Coder's reconciler replaces them.
   */
  outdatedWorkspaces: number;
}

/** Runs one named Coder call; an activity turns its failure into a failure of that step. */
export type NamedCoderCall = <T>(step: string, call: () => Promise<T>) => Promise<T>;

/** Outside an activity (`scan --org`): a Coder error says which call failed for which template, and keeps its kind for the exit code. */
function namedBy(subject: string): NamedCoderCall {
  return async (step, call) => {
    try {
      return await call();
    } catch (err) {
      if (isCoderApiError(err)) throw Object.assign(new Error(`${step} failed for ${subject}: ${err.message}`), { type: `CoderApi.${err.kind}`, cause: err });
      throw err;
    }
  };
}

/** Reads a template's active version source and names the deprecated types it still declares. */
export async function activeVersionDeprecations(
  coder: Pick<CoderClient, 'templateVersion' | 'downloadFile' | 'workspacesOfTemplate'>,
  organization: string,
  template: { name: string; active_version_id: string },
  named: NamedCoderCall = namedBy(`template ${organization}/${template.name}`),
): Promise<OrganizationTemplate> {
  const version = await named('read template source', () => coder.templateVersion(template.active_version_id));
  const tar = await named('read template source', () => coder.downloadFile(version.job.file_id));
  const files = (await readTar(tar)).filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
  const outdated = await named('list outdated workspaces', () => coder.workspacesOfTemplate(template.name, { extraQuery: 'outdated:true' }));
  return { name: template.name, activeVersionId: version.id, activeVersionName: version.name, deprecatedTypes: deprecatedTypesIn(files), outdatedWorkspaces: outdated.filter((w) => !isPrebuiltWorkspace(w)).length };
}
