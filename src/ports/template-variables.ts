/**
 * Values the operator gives the worker for templates' sensitive variables: Coder hands them back as
 * '*redacted*', so a pushed version could not carry them otherwise. Read where the worker runs;
 * never in a workflow's input, history or logs.
 */
export interface TemplateVariableValues {
  /** The values given for one template (by variable name), or undefined when none are. */
  valuesFor(organization: string, template: string): Promise<Readonly<Record<string, string>> | undefined>;
  /** Where they are given, for a refusal: e.g. `key "coder/k8s-dev" of /etc/wsmigrate/variables.json`. */
  whereFor(organization: string, template: string): string;
}

/** A source that cannot be used; its message names it and what is wrong, never a value. */
export class TemplateVariablesError extends Error {
  override name = 'TemplateVariablesError';
}
