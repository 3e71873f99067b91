import {
  ANY_INDEX,
  formatInstanceAddress,
  formatResourceAddress,
  goJsonString,
  parseResourceInstanceAddress,
  readStateOutlineV4,
  StateFormatError,
  withType,
  type JsonPathPattern,
  type JsonTokenSpan,
  type ResourceLocation,
  type StateResourceV4,
} from './state';
import { lookupDeprecated, NEVER_TOUCH, type ResourceMode, type TypeMapping } from './type-map';

/**
 * The offline, lossless rename of deprecated kubernetes types in a Terraform v4 state (strategy
 * "rename"). Only the changed string tokens and the serial are spliced into the original text, so
 * attribute bytes, integers above 2^53, key order, whitespace, sensitive paths, identity, private
 * blobs and deposed objects come out byte for byte as they went in.
 */

export interface AddressChange {
  from: string;
  to: string;
}

export interface RefusedEntry {
  address: string;
  type: string;
  reason: string;
}

export interface RenameReport {
  /** Nothing left to rename and nothing refused: the output is the input, serial unchanged. */
  alreadyMigrated: boolean;
  /** Every renamed instance address (one entry per address, deposed objects included in it). */
  renamed: AddressChange[];
  counts: { resources: number; instances: number; dependencies: number; checkResults: number };
  /** DIFFERENT types left in place; only filled with { skipDifferent: true }. */
  refused: RefusedEntry[];
  serial: { from: number; to: number };
  lineage: string;
}

export interface RenameOptions {
  /** Leave DIFFERENT types in place and list them as refused (the import strategy handles them). */
  skipDifferent?: boolean;
}

export interface RenameProblem {
  address?: string;
  message: string;
}

/**
 * The state was not changed; each problem names the address and what to do about it.
 * kind 'refused': the state is fine but holds what a rename must not touch (DIFFERENT types,
 * collisions); 'invalid-state': the text is not a readable v4 state.
 */
export class StateRenameError extends Error {
  constructor(
    readonly problems: RenameProblem[],
    readonly kind: 'refused' | 'invalid-state' = 'refused',
  ) {
    super(
      problems.length === 1 && problems[0].address === undefined
        ? `Cannot rename the state: ${problems[0].message}`
        : `Cannot rename the state (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
            problems.map((p) => `  - ${p.address ? `${p.address}: ` : ''}${p.message}`).join('\n'),
    );
    this.name = 'StateRenameError';
  }
}

const PATTERNS: readonly JsonPathPattern[] = [
  ['serial'],
  ['resources', ANY_INDEX, 'type'],
  ['resources', ANY_INDEX, 'instances', ANY_INDEX, 'dependencies', ANY_INDEX],
  ['check_results', ANY_INDEX, 'config_addr'],
  ['check_results', ANY_INDEX, 'objects', ANY_INDEX, 'object_addr'],
];

interface Splice {
  start: number;
  end: number;
  text: string;
}

export function renameStateTypes(stateText: string, opts: RenameOptions = {}): { stateText: string; report: RenameReport } {
  let read: ReturnType<typeof readStateOutlineV4>;
  try {
    read = readStateOutlineV4(stateText, PATTERNS);
  } catch (e) {
    if (e instanceof StateFormatError) throw new StateRenameError([{ message: e.message }], 'invalid-state');
    throw e;
  }
  // Attribute blobs are empty in the outline: the rename reads types, keys, dependencies and checks.
  const state = read.outline;
  const problems: RenameProblem[] = [];
  const refused: RefusedEntry[] = [];

  const renames = new Map<number, TypeMapping>();
  state.resources.forEach((resource, i) => {
    const mapping = renamableOrDifferent(resource.mode, resource.type);
    if (!mapping) return;
    if (mapping.compat === 'SAME') {
      renames.set(i, mapping);
      return;
    }
    const reason = differentReason(mapping);
    if (opts.skipDifferent) {
      for (const address of instanceAddresses(resource)) refused.push({ address, type: resource.type, reason });
    } else {
      problems.push({ address: formatResourceAddress(resource), message: `${reason}; or rename the rest with skipDifferent (--skip-different) and leave this one in place.` });
    }
  });
  problems.push(...findCollisions(state.resources, renames));
  if (problems.length > 0) throw new StateRenameError(problems);

  const splices: Splice[] = [];
  const renameAddress = renamedAddressTokens();
  let dependencies = 0;
  let checkResults = 0;
  let serialSpan: JsonTokenSpan | undefined;
  for (const span of read.spans) {
    const path = span.path;
    if (path[0] === 'serial') {
      serialSpan = span;
    } else if (path[0] === 'resources' && path[2] === 'type') {
      const mapping = renames.get(path[1] as number);
      if (mapping) splices.push({ start: span.start, end: span.end, text: goJsonString(mapping.replacement) });
    } else if (path[0] === 'resources') {
      const instance = state.resources[path[1] as number].instances[path[3] as number];
      const splice = renameAddress(span, instance.dependencies?.[path[5] as number]);
      if (splice) {
        splices.push(splice);
        dependencies++;
      }
    } else if (path[0] === 'check_results') {
      const check = state.check_results?.[path[1] as number];
      if (check?.object_kind !== 'resource') continue;
      const value = path[2] === 'config_addr' ? check.config_addr : check.objects?.[path[3] as number]?.object_addr;
      const splice = renameAddress(span, value);
      if (splice) {
        splices.push(splice);
        checkResults++;
      }
    }
  }

  const serialFrom = state.serial;
  const renamed: AddressChange[] = [];
  for (const [i, mapping] of renames) {
    const resource = state.resources[i];
    const renamedResource = { ...locationOf(resource), type: mapping.replacement };
    for (const key of instanceKeys(resource)) {
      renamed.push({ from: formatInstanceAddress(resource, key), to: formatInstanceAddress(renamedResource, key) });
    }
  }
  const report: RenameReport = {
    alreadyMigrated: splices.length === 0 && refused.length === 0,
    renamed,
    counts: { resources: renames.size, instances: renamed.length, dependencies, checkResults },
    refused,
    serial: { from: serialFrom, to: serialFrom },
    lineage: state.lineage,
  };
  if (splices.length === 0) return { stateText, report };

  if (!serialSpan) throw new StateRenameError([{ message: 'the state has no "serial" field; Terraform always writes one.' }], 'invalid-state');
  const serialText = stateText.slice(serialSpan.start, serialSpan.end);
  if (!/^(0|[1-9][0-9]*)$/.test(serialText)) {
    throw new StateRenameError([{ message: '"serial" is not a whole number; a Terraform state serial is an unsigned integer.' }], 'invalid-state');
  }
  // BigInt: a serial is a uint64 and must not be rounded on its way up.
  const nextSerial = (BigInt(serialText) + 1n).toString();
  splices.push({ start: serialSpan.start, end: serialSpan.end, text: nextSerial });
  report.serial = { from: serialFrom, to: Number(nextSerial) };

  return { stateText: applySplices(stateText, splices), report };
}

function renamableOrDifferent(mode: ResourceMode, type: string): TypeMapping | undefined {
  if (NEVER_TOUCH.includes(type)) return undefined;
  return lookupDeprecated(mode, type);
}

function differentReason(mapping: TypeMapping): string {
  const why = mapping.note ? ` (${mapping.note})` : '';
  const different = `${mapping.deprecated} and ${mapping.replacement} are different implementations${why}, so renaming the type would corrupt the state`;
  if (mapping.mode === 'data') {
    // Nothing to import: Terraform reads a data source again on the next plan and drops the stale entry.
    return `${different}; as a data source it needs no state change: leave it, Terraform re-reads it with the rewritten template`;
  }
  return `${different}; needs strategy import (terraform state rm + terraform import, see \`wsmigrate state import-plan\`)`;
}

/**
 * A dependency or check address that names a SAME deprecated type, re-encoded with the new type.
 * Each distinct address is worked out once: every instance of a resource repeats its dependencies.
 */
function renamedAddressTokens(): (span: JsonTokenSpan, value: string | undefined) => Splice | undefined {
  const tokens = new Map<string, string | undefined>();
  const renamedToken = (value: string): string | undefined => {
    const parsed = parseResourceInstanceAddress(value);
    if (!parsed) return undefined;
    const mapping = renamableOrDifferent(parsed.mode, parsed.type);
    if (!mapping || mapping.compat !== 'SAME') return undefined;
    return goJsonString(withType(value, parsed, mapping.replacement));
  };
  return (span, value) => {
    if (span.kind !== 'string' || value === undefined) return undefined;
    let text = tokens.get(value);
    if (text === undefined && !tokens.has(value)) {
      text = renamedToken(value);
      tokens.set(value, text);
    }
    return text === undefined ? undefined : { start: span.start, end: span.end, text };
  };
}

function findCollisions(resources: readonly StateResourceV4[], renames: ReadonlyMap<number, TypeMapping>): { address: string; message: string }[] {
  const byFinalAddress = new Map<string, number[]>();
  resources.forEach((resource, i) => {
    const type = renames.get(i)?.replacement ?? resource.type;
    const key = formatResourceAddress({ ...locationOf(resource), type });
    byFinalAddress.set(key, [...(byFinalAddress.get(key) ?? []), i]);
  });
  const problems: { address: string; message: string }[] = [];
  for (const [finalAddress, indices] of byFinalAddress) {
    if (indices.length < 2 || !indices.some((i) => renames.has(i))) continue;
    for (const i of indices.filter((j) => renames.has(j))) {
      problems.push({
        address: formatResourceAddress(resources[i]),
        message:
          `renaming it would collide with ${finalAddress}, which the state already holds (same module and name). ` +
          'This is usually a half-finished migration: check which object is real with `terraform state show`, ' +
          'remove the stale one with `terraform state rm`, then rename again.',
      });
    }
  }
  return problems;
}

function locationOf(resource: StateResourceV4): ResourceLocation {
  return {
    ...(resource.module === undefined ? {} : { module: resource.module }),
    mode: resource.mode,
    type: resource.type,
    name: resource.name,
  };
}

/** Distinct instance keys in state order; deposed objects share their instance's key. */
function instanceKeys(resource: StateResourceV4): (number | string | undefined)[] {
  if (resource.instances.length === 0) return [undefined];
  return [...new Set(resource.instances.map((instance) => instance.index_key))];
}

function instanceAddresses(resource: StateResourceV4): string[] {
  return instanceKeys(resource).map((key) => formatInstanceAddress(locationOf(resource), key));
}

function applySplices(text: string, splices: Splice[]): string {
  const ordered = [...splices].sort((a, b) => a.start - b.start);
  // Concatenation builds a rope of slices, flattened once by the first character read: about half
  // the time of collecting the parts and joining them, on a state of many megabytes.
  let out = '';
  let cursor = 0;
  for (const splice of ordered) {
    out += text.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  out += text.slice(cursor);
  out.charCodeAt(0);
  return out;
}
