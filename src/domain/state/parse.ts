import type { z } from 'zod';
import type { IndexKey, ResourceMode } from './address';
import { ANY_INDEX, JsonSyntaxError, parseJsonOutline, parseJsonWithSpans, type JsonPathPattern, type JsonTokenSpan } from './json-spans';
import { StateV4Schema, type StateV4 } from './schema';

/** The structural view of a state resource that other modules read (import plans, plan checks). */
export interface StateResourceView {
  module?: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  instances: { index_key?: number | string; deposed?: string; attributes?: Record<string, unknown> }[];
}

export interface ParsedState {
  /** The validated document; unknown fields are still in it. */
  readonly state: StateV4;
  readonly resources: readonly StateResourceView[];
  readonly serial: number;
  readonly lineage: string;
  readonly terraformVersion?: string;
}

/** The text is not a Terraform v4 state. The message says where and what, never the state's content. */
export class StateFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateFormatError';
  }
}

/** Parses and validates a state file's text; throws StateFormatError. */
export function parseStateV4(text: string): ParsedState {
  return readStateV4(text, []).parsed;
}

/**
 * parseStateV4 plus the spans of the values matched by `patterns`, from one scan of the text, for
 * callers that splice the original text.
 */
export function readStateV4(
  text: string,
  patterns: readonly JsonPathPattern[],
): { parsed: ParsedState; spans: JsonTokenSpan[] } {
  const { document, spans } = readJson(text, () => parseJsonWithSpans(text, patterns));
  const state = validateState(document);
  return {
    parsed: {
      state,
      resources: state.resources.map(toView),
      serial: state.serial,
      lineage: state.lineage,
      ...(state.terraform_version === undefined ? {} : { terraformVersion: state.terraform_version }),
    },
    spans,
  };
}

/**
 * Values of a state whose JSON kind is all the schema checks, and that a splicing rewrite never
 * reads: the attribute blobs and their company, most of a state's bytes. A schema change that
 * checks more of one of them must take it off this list (a test compares both readers on each).
 */
const OPAQUE_VALUES: readonly JsonPathPattern[] = [
  ['outputs'],
  ...['attributes', 'sensitive_attributes', 'identity', 'private'].map((key): JsonPathPattern => ['resources', ANY_INDEX, 'instances', ANY_INDEX, key]),
];

/**
 * readStateV4 for a rewrite that splices the text: the same checks and refusals, word for word,
 * and the same spans, but the state it returns is an outline — every attribute blob, identity,
 * private blob, sensitive path list and the outputs is an empty value of its JSON kind — and no
 * resource views. Faster, and no attribute blob outlives its check.
 */
export function readStateOutlineV4(text: string, patterns: readonly JsonPathPattern[]): { outline: StateV4; spans: JsonTokenSpan[] } {
  const { document, spans } = readJson(text, () => parseJsonOutline(text, patterns, OPAQUE_VALUES));
  return { outline: validateState(document), spans };
}

function readJson(text: string, parse: () => { value: unknown; spans: JsonTokenSpan[] }): { document: unknown; spans: JsonTokenSpan[] } {
  try {
    const { value, spans } = parse();
    return { document: value, spans };
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new StateFormatError(notJsonMessage(text, e.message));
    throw e;
  }
}

/**
 * Why the text is not JSON, and what to do. A state saved through Windows PowerShell's `>` or
 * Out-File is UTF-16 or UTF-8 with a byte-order mark; Terraform reads neither, and "line 1, column 1" alone names no cause.
 */
function notJsonMessage(text: string, where: string): string {
  const encoding = misencoding(text);
  if (encoding === undefined) return `The state is not valid JSON: ${where}.`;
  return (
    `The state file ${encoding}, not plain UTF-8 JSON: Windows PowerShell's ">" and Out-File save text that way, and Terraform cannot read such a state either. ` +
    'Let coder write the file itself: coder state pull WORKSPACE dev.tfstate (the file as an argument, not a redirection), then run this again.'
  );
}

/** UTF-16 read as UTF-8: its byte-order mark as two U+FFFD, or a NUL in every other place from the start. */
function misencoding(text: string): string | undefined {
  if (text.startsWith('\uFFFD\uFFFD') || text.charCodeAt(0) === 0 || text.charCodeAt(1) === 0) return 'is UTF-16 text';
  if (text.startsWith('\uFEFF')) return 'starts with a byte-order mark';
  return undefined;
}

function validateState(document: unknown): StateV4 {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new StateFormatError('The state is not a JSON object; a Terraform state file is an object with "version": 4.');
  }
  const version = (document as { version?: unknown }).version;
  if (version !== 4) {
    const which = version === undefined ? 'has no "version" field' : `has format version ${JSON.stringify(version)}`;
    throw new StateFormatError(
      `The state ${which}; wsmigrate needs a format version 4 state, which Terraform 0.12 and later write. ` +
        'Let a Terraform 0.12+ run write this state once (for example a refresh-only apply), then try again.',
    );
  }
  const result = StateV4Schema.safeParse(document);
  if (!result.success) {
    throw new StateFormatError(`The state does not have the shape of a Terraform v4 state: ${describeIssues(result.error)}.`);
  }
  const state = result.data;
  if (state.lineage.trim() === '') {
    throw new StateFormatError(
      'The state has an empty lineage; Terraform gives every state one, and wsmigrate uses it to tell one workspace\'s state from another\'s. ' +
        'Pull the state again from Coder (coder state pull) instead of using an edited copy.',
    );
  }
  assertUniqueAddresses(state.resources);
  return state;
}

/** Terraform writes each (module, mode, type, name) once; a repeat means a hand-edited or merged file. */
function assertUniqueAddresses(resources: StateV4['resources']): void {
  const seen = new Map<string, number>();
  resources.forEach((r, i) => {
    const address = `${r.module ? `${r.module}.` : ''}${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`;
    const first = seen.get(address);
    if (first !== undefined) {
      throw new StateFormatError(
        `The state lists ${address} twice (resources[${first}] and resources[${i}]); Terraform never writes that, so the file was edited or merged by hand. ` +
          'Pull the state again from Coder (coder state pull) and try again.',
      );
    }
    seen.set(address, i);
  });
}

function toView(resource: StateV4['resources'][number]): StateResourceView {
  return {
    ...(resource.module === undefined ? {} : { module: resource.module }),
    mode: resource.mode as ResourceMode,
    type: resource.type,
    name: resource.name,
    instances: resource.instances.map((instance) => ({
      ...(instance.index_key === undefined ? {} : { index_key: instance.index_key as IndexKey }),
      ...(instance.deposed === undefined ? {} : { deposed: instance.deposed }),
      ...(instance.attributes == null ? {} : { attributes: instance.attributes }),
    })),
  };
}

/** `resources[2].type: expected string` for each issue, at most five; zod never echoes values here. */
function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    // Never an empty path: validateState has made sure the document is an object first.
    const path = formatPath(issue.path);
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return `${path}: ${missing ? 'missing' : issue.message}`;
  });
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : '';
  return parts.join('; ') + more;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : `${i === 0 ? '' : '.'}${String(step)}`))
    .join('');
}
