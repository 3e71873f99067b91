import { readFile } from 'node:fs/promises';
import { TemplateVariablesError, type TemplateVariableValues } from '../ports/template-variables';

const keyOf = (organization: string, template: string) => `${organization}/${template}`;

function valuesOf(parsed: unknown, file: string): Map<string, Readonly<Record<string, string>>> {
  const shape = `a JSON object {"<organization>/<template>": {"NAME": "VALUE", …}, …}`;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TemplateVariablesError(`${file} must hold ${shape}`);
  const out = new Map<string, Readonly<Record<string, string>>>();
  for (const [key, values] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(key)) throw new TemplateVariablesError(`${file}: key "${key}" is not "<organization>/<template>" (e.g. "coder/k8s-dev"); it must hold ${shape}`);
    if (values === null || typeof values !== 'object' || Array.isArray(values)) throw new TemplateVariablesError(`${file}: "${key}" must be an object of variable names to string values`);
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      // The value is not echoed: it is a secret.
      if (typeof value !== 'string') throw new TemplateVariablesError(`${file}: "${key}" variable "${name}" must be a string (as 'coder templates push --var' gives it; write numbers and booleans in quotes)`);
    }
    out.set(key, values as Record<string, string>);
  }
  return out;
}

/**
 * WSMIGRATE_TEMPLATE_VARIABLES: a JSON file read at each push (so values added meanwhile are seen
 * without a restart), e.g. `{"coder/k8s-dev": {"workspaces_namespace": "team-a"}}`.
 */
export function templateVariablesFile(file: string): TemplateVariableValues {
  return {
    async valuesFor(organization, template) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new TemplateVariablesError(`WSMIGRATE_TEMPLATE_VARIABLES names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); fix the path or unset it`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // JSON.parse's message may quote the text around the error: a secret.
        throw new TemplateVariablesError(`${file} is not valid JSON; it must hold a JSON object {"<organization>/<template>": {"NAME": "VALUE", …}, …}`);
      }
      return valuesOf(parsed, file).get(keyOf(organization, template));
    },
    whereFor(organization, template) {
      return `key "${keyOf(organization, template)}" of ${file} (WSMIGRATE_TEMPLATE_VARIABLES)`;
    },
  };
}
