import { activeVersionDeprecations, type OrganizationTemplate } from '../adapters/coder/active-version-deprecations';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';

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

/** Every template of the organization (or the named ones) with what its active version still declares. */
export function makeListOrganizationTemplates({ coder }: ActivityDeps) {
  return async function listOrganizationTemplates(input: ListOrganizationTemplatesInput): Promise<OrganizationTemplates> {
    const all = await coderStep('list templates', `organization ${input.organization}`, () => coder.templatesOfOrganization(input.organization));
    const wanted = input.templates ? all.filter((t) => input.templates?.some((n) => n.toLowerCase() === t.name.toLowerCase())) : all;
    const unknown = (input.templates ?? []).filter((n) => !all.some((t) => t.name.toLowerCase() === n.toLowerCase()));
    const templates: OrganizationTemplate[] = [];
    for (const t of wanted) templates.push(await activeVersionDeprecations(coder, input.organization, t, (step, call) => coderStep(step, `template ${input.organization}/${t.name}`, call)));
    return { templates, unknown };
  };
}
