import type { TemplateVersionVariableRecord } from './model';
import { parameterText } from './template-parameters';
import type { TemplateConfig, TemplateVariableSpec } from './template-config';

/**
 * What a template version import stores per variable (coderd/provisionerdserver UpdateJob): the
 * value given in `user_variable_values`, else the default; a variable without a default is
 * required, and stored with '' when nothing was given (the import then fails).
 */
export function storedVariables(specs: readonly TemplateVariableSpec[], given: readonly { name: string; value: string }[]): TemplateVersionVariableRecord[] {
  return specs.map((spec) => {
    const user = given.find((g) => g.name === spec.name);
    const defaultValue = parameterText(spec.defaultValue);
    return {
      name: spec.name,
      description: spec.description,
      type: spec.type,
      value: user ? user.value : defaultValue,
      defaultValue,
      required: spec.defaultValue === undefined,
      sensitive: spec.sensitive,
    };
  });
}

/**
 * An import's variables: stored per version (storedVariables), and the config's values set to them
 * for its builds. `missing` names the required ones left without a value (the import then fails
 * with Coder's words, `missingVariablesMessage`).
 */
export function importVariables(config: TemplateConfig, given: readonly { name: string; value: string }[]): { variables: TemplateVersionVariableRecord[]; missing: string[] } {
  const variables = storedVariables(config.variableSpecs, given);
  for (const v of variables) config.variables[v.name] = typedVariableValue(v.type, v.value);
  return { variables, missing: variables.filter((v) => v.required && v.value === '').map((v) => v.name) };
}

export function missingVariablesMessage(missing: readonly string[]): string {
  return `required template variables need values: ${missing.join(', ')}`;
}

/** A stored value as Terraform reads it from `-var name=value`: by the variable's type. */
export function typedVariableValue(type: string, value: string): unknown {
  if (type === 'number') return Number(value);
  if (type === 'bool') return value === 'true';
  if (type === 'string' || type === 'any') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** `GET /templateversions/{id}/variables` (coderd convertTemplateVersionVariable): a sensitive one's value and default read `*redacted*`. */
export function templateVersionVariablesJson(variables: readonly TemplateVersionVariableRecord[]): Record<string, unknown>[] {
  return variables.map((v) => ({
    name: v.name,
    description: v.description,
    type: v.type,
    value: v.sensitive ? '*redacted*' : v.value,
    default_value: v.sensitive ? '*redacted*' : v.defaultValue,
    required: v.required,
    sensitive: v.sensitive,
  }));
}

/**
 * What coderd hands a build of the version (provisionerdserver asVariableValues): each stored
 * variable with its value, else its default; one with neither is left out unless required.
 */
export function buildVariableValues(variables: readonly TemplateVersionVariableRecord[]): { name: string; value: string }[] {
  return variables
    .map((v) => ({ name: v.name, value: v.value !== '' ? v.value : v.defaultValue, required: v.required }))
    .filter((v) => v.value !== '' || v.required)
    .map(({ name, value }) => ({ name, value }));
}
