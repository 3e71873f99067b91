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

/**
 * A build's parameter values, as wsbuilder.go getClassicParameters resolves them through
 * codersdk ParameterResolver.ValidateResolve, for each of the version's parameters: the value the
 * request gives, else the previous build's (unless ephemeral), else the default. An immutable one
 * given a new value, or a required one with neither a given nor a previous value, fails the request
 * (400, nothing built). Values for names the version does not declare are not used.
 * (The dynamic-parameters flow, Coder's default for new templates, resolves the same way for these
 * cases: request, previous build, default.)
 */
export function resolveBuildParameters(
  parameters: readonly TemplateVersionParameterRecord[],
  requested: readonly BuildParameterValue[],
  previous: readonly BuildParameterValue[],
): BuildParameterValue[] {
  return parameters.map((p) => {
    const given = requested.find((v) => v.name === p.name);
    const last = previous.find((v) => v.name === p.name);
    if (!p.mutable && given && last && given.value !== last.value) {
      throw invalid(p.name, `Parameter "${p.name}" is not mutable, so it can't be updated after creating a workspace.`);
    }
    if (p.required && !given && !last) throw invalid(p.name, `Parameter "${p.name}" is required but not provided`);
    const resolved = given?.value ?? (p.ephemeral ? undefined : last?.value) ?? p.defaultValue;
    // codersdk validateBuildParameter: an empty value of an optional parameter is checked as its default.
    if (p.required && resolved === '') throw invalid(p.name, `can't validate build parameter "${p.displayName || p.name}": parameter value is required`);
    const problem = validateValue(p, resolved === '' ? p.defaultValue : resolved);
    if (problem) throw invalid(p.name, `can't validate build parameter "${p.displayName || p.name}": ${problem}`);
    return { name: p.name, value: resolved };
  });
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
