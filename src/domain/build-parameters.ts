/** What a build validates of one of its version's coder_parameters (codersdk.TemplateVersionParameter). */
export interface VersionParameter {
  name: string;
  type: string;
  required: boolean;
  default_value: string;
  ephemeral?: boolean | undefined;
  options?: readonly { value: string }[] | null | undefined;
  validation_min?: number | null | undefined;
  validation_max?: number | null | undefined;
}

export interface ParameterValue {
  name: string;
  value: string;
}

/**
 * Why a build of `target` that gives no parameter values would be refused on a workspace whose
 * last build ran with `last`, as coderd resolves them (coderd/wsbuilder/wsbuilder.go getParameters,
 * codersdk ParameterResolver.ValidateResolve): each parameter takes the last build's value (not an
 * ephemeral one's), else its default; a required one with no last value, a value outside the
 * options, or a number outside its range fails the build request. Regular expressions are left to
 * Coder (Go's syntax is not JavaScript's). Empty when the build would be accepted.
 */
export function parameterRefusals(target: readonly VersionParameter[], last: readonly ParameterValue[]): string[] {
  const refusals: string[] = [];
  for (const p of target) {
    const previous = last.find((v) => v.name === p.name);
    if (p.required && !previous) {
      refusals.push(`'${p.name}' is required and the last build has no value for it`);
      continue;
    }
    const value = (p.ephemeral ? undefined : previous?.value) ?? p.default_value;
    const options = p.options ?? [];
    if (options.length > 0) {
      if (!options.some((o) => o.value === value)) refusals.push(`'${p.name}' is '${value}', not one of its options (${options.map((o) => o.value).join(', ')})`);
      continue;
    }
    if (p.type !== 'number') continue;
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) refusals.push(`'${p.name}' is '${value}', not a number`);
    else if (p.validation_min != null && n < p.validation_min) refusals.push(`'${p.name}' is ${value}, under its minimum ${p.validation_min}`);
    else if (p.validation_max != null && n > p.validation_max) refusals.push(`'${p.name}' is ${value}, over its maximum ${p.validation_max}`);
  }
  return refusals;
}

/**
 * Whether two versions declare the same parameters with the same rules: then values that passed
 * one pass the other, and no workspace's values need reading.
 */
export function sameParameterRules(a: readonly VersionParameter[], b: readonly VersionParameter[]): boolean {
  const rule = (p: VersionParameter) =>
    JSON.stringify([p.name, p.type, p.required, p.default_value, p.ephemeral ?? false, (p.options ?? []).map((o) => o.value), p.validation_min ?? null, p.validation_max ?? null]);
  const left = a.map(rule).sort();
  const right = b.map(rule).sort();
  return left.length === right.length && left.every((r, i) => r === right[i]);
}

/**
 * The values a build had (`had`) that a later build (`now`) no longer holds as they were: what a restore
 * onto the earlier build's version gives back. Coder carries values from the previous build only
 * (coderd/wsbuilder/wsbuilder.go getClassicParameters; coderd/dynamicparameters/resolver.go ResolveParameters),
 * and a start on a version without a parameter drops its value; without it the restore resolves the default,
 * and a claim sized by it that shrinks is replaced by the kubernetes provider.
 */
export function parametersLost(had: readonly ParameterValue[], now: readonly ParameterValue[]): ParameterValue[] {
  return had.filter((p) => !now.some((n) => n.name === p.name && n.value === p.value)).map((p) => ({ name: p.name, value: p.value }));
}
