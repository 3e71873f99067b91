import { ApiError } from './api-error';
import { evaluateValue, type Resolver } from './expression';
import type { BuildParameterValue, TemplateVersionParameterRecord } from './model';
import type { TemplateConfig } from './template-config';

/**
 * A value as Coder stores it as text: a parameter's as the coder provider hands it over, a variable's
 * default as provisioner/terraform/parse.go keeps it (a list or an object as JSON).
 */
export function parameterText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function firstBlock(raw: unknown): Record<string, unknown> | undefined {
  const block = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  return block !== null && typeof block === 'object' && !Array.isArray(block) ? (block as Record<string, unknown>) : undefined;
}

function optionalNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A resolver for what an import can see: the version's variables and locals, no workspace. */
function importResolver(config: TemplateConfig): Resolver {
  const resolve: Resolver = (path) => {
    const [root, second] = path;
    if (root === 'var' && second !== undefined) return config.variables[second];
    if (root === 'local' && second !== undefined && second in config.locals) return evaluateValue(config.locals[second], resolve);
    return undefined;
  };
  return resolve;
}

/**
 * What an import stores per `data "coder_parameter"` block (template_version_parameters, read by
 * `GET /templateversions/{id}/rich-parameters`): the parameter is known by its `name` argument, not
 * the block's label; it is required when it has no `default` (coder provider, parameter.go); mutable
 * and ephemeral default to false.
 */
export function templateVersionParameters(config: TemplateConfig): TemplateVersionParameterRecord[] {
  const resolve = importResolver(config);
  return config.dataSources
    .filter((d) => d.type === 'coder_parameter')
    .map((d) => {
      const body = d.body ?? {};
      const name = parameterText(evaluateValue(body.name, resolve)) || d.name;
      const rawDefault = body.default === undefined ? undefined : evaluateValue(body.default, resolve);
      const options = (Array.isArray(body.option) ? body.option : body.option !== undefined ? [body.option] : [])
        .map((o) => firstBlock(o))
        .filter((o): o is Record<string, unknown> => o !== undefined)
        .map((o) => ({ name: parameterText(evaluateValue(o.name, resolve)), value: parameterText(evaluateValue(o.value, resolve)) }));
      const validation = firstBlock(body.validation);
      const min = optionalNumber(validation?.min);
      const max = optionalNumber(validation?.max);
      const regex = typeof validation?.regex === 'string' ? validation.regex : undefined;
      const record: TemplateVersionParameterRecord = {
        name,
        displayName: typeof body.display_name === 'string' ? body.display_name : '',
        description: typeof body.description === 'string' ? body.description : '',
        type: typeof body.type === 'string' ? body.type : 'string',
        mutable: body.mutable === true,
        ephemeral: body.ephemeral === true,
        defaultValue: parameterText(rawDefault),
        required: body.default === undefined,
        options,
        ...(min !== undefined ? { validationMin: min } : {}),
        ...(max !== undefined ? { validationMax: max } : {}),
        ...(regex !== undefined ? { validationRegex: regex } : {}),
      };
      return record;
    });
}

function invalid(name: string, detail: string): ApiError {
  return new ApiError(400, `Unable to validate parameter "${name}"`, `parameter validation failed\n${detail}`);
}

/** codersdk/richparameters.go ValidateWorkspaceBuildParameter: options first, then the type's own rules. */
function validateValue(p: TemplateVersionParameterRecord, value: string): string | undefined {
  if (p.options.length > 0) {
    return p.options.some((o) => o.value === value) ? undefined : `parameter value must match one of options: [${p.options.map((o) => o.value).join(' ')}]`;
  }
  if (p.type === 'number') {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) return `value "${value}" is not a number`;
    if (p.validationMin !== undefined && n < p.validationMin) return `provided value ${value} is less than the minimum ${p.validationMin}`;
    if (p.validationMax !== undefined && n > p.validationMax) return `provided value ${value} is more than the maximum ${p.validationMax}`;
  }
  if (p.type === 'bool' && value !== 'true' && value !== 'false') return `boolean value can be either "true" or "false"`;
  if (p.validationRegex !== undefined && p.type === 'string' && !new RegExp(p.validationRegex).test(value)) return `value "${value}" does not match regex ${p.validationRegex}`;
  return undefined;
}

/** Which of wsbuilder.go's two parameter paths a build takes (`usingDynamicParameters`: `!template.UseClassicParameterFlow`). */
export type ParameterFlow = 'classic' | 'dynamic';

/** wsbuilder.go `usingDynamicParameters`: dynamic unless the template opted back into the classic flow. */
export function parameterFlowOf(template: { meta: { useClassicParameterFlow: boolean } } | undefined): ParameterFlow {
  if (!template) return 'classic'; // "Let another part of the code get this error"
  return template.meta.useClassicParameterFlow ? 'classic' : 'dynamic';
}

/**
 * A build's parameter values for each of the version's parameters: the value the request gives, else
 * the previous build's (unless ephemeral), else the default. An immutable one given a new value, a
 * required one with neither a given nor a previous value, or a value the version no longer accepts
 * (options, min/max, regex) fails the request with 400 before any job exists: nothing is built. Values
 * for names the version does not declare are not kept.
 *
 * - classic (wsbuilder.go `getClassicParameters`, codersdk `ParameterResolver.ValidateResolve`): the
 *   first bad parameter ends it: `Unable to validate parameter "<name>"`, the reason in `detail`.
 * - dynamic (wsbuilder.go `getDynamicParameters` → coderd/dynamicparameters/resolver.go `ResolveParameters`,
 *   the previous build's values rendered against the build's version; error.go `DiagnosticError.Response`):
 *   every bad parameter is reported, `Unable to validate parameters` with one `validations[]` entry per
 *   parameter (sorted by name, `field` the name, `detail` "<summary>; <detail>"), no `detail`. The carried
 *   values are the same ones either way; only the body differs. (main keeps undeclared values on stop and
 *   delete builds; older releases drop them on every build as the classic flow does, the harsher reading kept here.)
 */
export function resolveBuildParameters(
  parameters: readonly TemplateVersionParameterRecord[],
  requested: readonly BuildParameterValue[],
  previous: readonly BuildParameterValue[],
  flow: ParameterFlow = 'classic',
): BuildParameterValue[] {
  const problems: { name: string; summary: string; detail: string }[] = [];
  const resolved = parameters.map((p) => {
    const problem = parameterProblem(p, requested, previous);
    if (problem) {
      if (flow === 'classic') throw invalid(p.name, problem.classic);
      problems.push({ name: p.name, ...problem.dynamic });
    }
    const given = requested.find((v) => v.name === p.name);
    const last = previous.find((v) => v.name === p.name);
    return { name: p.name, value: given?.value ?? (p.ephemeral ? undefined : last?.value) ?? p.defaultValue };
  });
  if (problems.length > 0) {
    const validations = [...problems].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((x) => ({ field: x.name, detail: `${x.summary}; ${x.detail}` }));
    throw new ApiError(400, 'Unable to validate parameters', undefined, validations);
  }
  return resolved;
}

/** Why one parameter's resolved value is refused, in each flow's words; undefined when it is accepted. */
function parameterProblem(
  p: TemplateVersionParameterRecord,
  requested: readonly BuildParameterValue[],
  previous: readonly BuildParameterValue[],
): { classic: string; dynamic: { summary: string; detail: string } } | undefined {
  const given = requested.find((v) => v.name === p.name);
  const last = previous.find((v) => v.name === p.name);
  if (!p.mutable && given && last && given.value !== last.value) {
    const detail = `Parameter "${p.name}" is not mutable, so it can't be updated after creating a workspace.`;
    // resolver.go: Summary "Immutable parameter changed", this Detail.
    return { classic: detail, dynamic: { summary: 'Immutable parameter changed', detail } };
  }
  const resolved = given?.value ?? (p.ephemeral ? undefined : last?.value) ?? p.defaultValue;
  // The dynamic flow's wording below (the preview's diagnostics) is inferred; clients should key on the field.
  if (p.required && !given && !last) return { classic: `Parameter "${p.name}" is required but not provided`, dynamic: { summary: 'Required parameter not provided', detail: 'parameter value is required' } };
  // codersdk validateBuildParameter: an empty value of an optional parameter is checked as its default.
  if (p.required && resolved === '') return { classic: `can't validate build parameter "${p.displayName || p.name}": parameter value is required`, dynamic: { summary: 'Required parameter not provided', detail: 'parameter value is required' } };
  const value = resolved === '' ? p.defaultValue : resolved;
  const problem = validateValue(p, value);
  if (!problem) return undefined;
  return { classic: `can't validate build parameter "${p.displayName || p.name}": ${problem}`, dynamic: { summary: `Parameter validation failed for value "${value}"`, detail: problem } };
}

/** `rich_parameter_values` of a request body: `[{ "name", "value" }]` (codersdk.WorkspaceBuildParameter). */
export function parseRichParameterValues(raw: unknown): BuildParameterValue[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || !raw.every((v) => v !== null && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { value?: unknown }).value === 'string')) {
    throw new ApiError(400, 'Request body must be valid JSON.', '"rich_parameter_values" must be an array of { "name": string, "value": string }');
  }
  return (raw as { name: string; value: string }[]).map((v) => ({ name: v.name, value: v.value }));
}

/** `GET /templateversions/{id}/rich-parameters` (coderd convertTemplateVersionParameter, the fields a client reads). */
export function templateVersionParametersJson(parameters: readonly TemplateVersionParameterRecord[]): Record<string, unknown>[] {
  return parameters.map((p) => ({
    name: p.name,
    display_name: p.displayName,
    description: p.description,
    type: p.type,
    mutable: p.mutable,
    ephemeral: p.ephemeral,
    default_value: p.defaultValue,
    required: p.required,
    options: p.options.map((o) => ({ name: o.name, value: o.value, description: '', icon: '' })),
    ...(p.validationMin !== undefined ? { validation_min: p.validationMin } : {}),
    ...(p.validationMax !== undefined ? { validation_max: p.validationMax } : {}),
    validation_regex: p.validationRegex ?? '',
  }));
}
