import type { TemplateVersionVariableRecord } from './model';
import type { TemplateVariableSpec } from './template-config';

/** How Coder stores a default: as text (provisioner/terraform/parse.go), a complex one as JSON. */
function defaultText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * What a template version import stores per variable (coderd/provisionerdserver UpdateJob): the
 * value given in `user_variable_values`, else the default; a variable without a default is
 * required, and stored with '' when nothing was given (the import then fails).
 */
export function storedVariables(specs: readonly TemplateVariableSpec[], given: readonly { name: string; value: string }[]): TemplateVersionVariableRecord[] {
  return specs.map((spec) => {
    const user = given.find((g) => g.name === spec.name);
    const defaultValue = defaultText(spec.defaultValue);
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
