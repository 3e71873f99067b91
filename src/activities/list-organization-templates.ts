import { isTerraformSource, readTar } from '../adapters/template-tar';
import { deprecatedTypesIn } from '../domain/template-deprecations';
import { coderStep } from './failures';
import type { ActivityDeps, CoderApi } from './ports';

export interface OrganizationTemplate {
  name: string;
  activeVersionId: string;
  activeVersionName: string;
  /** Deprecated kubernetes types its active version declares. */
  deprecatedTypes: string[];
  /**
   * Workspaces not on the active version. With a `_v1` active version and none outdated there is
   * nothing to do; outdated ones may still hold deprecated types (a template promoted by an earlier,
   * unfinished run).
   */
  outdatedWorkspaces: number;
}

export interface ListOrganizationTemplatesInput {
  organization: string;
  /** Only these (names); absent: every template of the organization. */
  templates?: string[];
}

export interface OrganizationTemplates {
  templates: OrganizationTemplate[];
  /** Names asked for that the organization does not have. */
  unknown: string[];
}

/** Reads a template's active version source and names the deprecated types it still declares. */
export async function activeVersionDeprecations(coder: Pick<CoderApi, 'templateVersion' | 'downloadFile' | 'workspacesOfTemplate'>, organization: string, template: { name: string; active_version_id: string }): Promise<OrganizationTemplate> {
  const subject = `template ${organization}/${template.name}`;
  const version = await coderStep('read template source', subject, () => coder.templateVersion(template.active_version_id));
  const tar = await coderStep('read template source', subject, () => coder.downloadFile(version.job.file_id));
  const files = (await readTar(tar)).filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
  const outdated = await coderStep('list outdated workspaces', subject, () => coder.workspacesOfTemplate(template.name, { extraQuery: 'outdated:true' }));
  return { name: template.name, activeVersionId: version.id, activeVersionName: version.name, deprecatedTypes: deprecatedTypesIn(files), outdatedWorkspaces: outdated.length };
}

/** Every template of the organization (or the named ones) with what its active version still declares. */
export function makeListOrganizationTemplates({ coder }: ActivityDeps) {
  return async function listOrganizationTemplates(input: ListOrganizationTemplatesInput): Promise<OrganizationTemplates> {
    const all = await coderStep('list templates', `organization ${input.organization}`, () => coder.templatesOfOrganization(input.organization));
    const wanted = input.templates ? all.filter((t) => input.templates?.some((n) => n.toLowerCase() === t.name.toLowerCase())) : all;
    const unknown = (input.templates ?? []).filter((n) => !all.some((t) => t.name.toLowerCase() === n.toLowerCase()));
    const templates: OrganizationTemplate[] = [];
    for (const t of wanted) templates.push(await activeVersionDeprecations(coder, input.organization, t));
    return { templates, unknown };
  };
}
