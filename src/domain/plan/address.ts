import type { ResourceMode } from '../type-map';

/** An instance key: a number for `count`, a string for `for_each`. */
export type InstanceKey = number | string;

export interface ModuleStep {
  readonly name: string;
  readonly key?: InstanceKey;
}

/** `module.a["k"].data.T.name[0]`, taken apart. */
export interface ResourceAddress {
  readonly modules: readonly ModuleStep[];
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
  readonly index?: InstanceKey;
}

export class AddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressError';
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Reads a dotted address with `[n]` / `["k"]` keys into its segments (each with an optional key). */
function segments(text: string): { name: string; key?: InstanceKey }[] {
  const out: { name: string; key?: InstanceKey }[] = [];
  let rest = text.trim();
  for (;;) {
    const ident = IDENT.exec(rest);
    if (!ident) throw new AddressError(`"${text}" is not a resource address: expected a name at "${rest}"`);
    rest = rest.slice(ident[0].length);
    let key: InstanceKey | undefined;
    if (rest.startsWith('[')) {
      const parsed = readKey(rest, text);
      key = parsed.key;
      rest = rest.slice(parsed.length);
    }
    out.push(key === undefined ? { name: ident[0] } : { name: ident[0], key });
    if (rest === '') return out;
    if (!rest.startsWith('.')) throw new AddressError(`"${text}" is not a resource address: unexpected "${rest}"`);
    rest = rest.slice(1);
  }
}

function readKey(rest: string, text: string): { key: InstanceKey; length: number } {
  const number = /^\[(\d+)\]/.exec(rest);
  if (number) return { key: Number(number[1]), length: number[0].length };
  if (rest.startsWith('["')) {
    // Scan to the closing quote, honouring backslash escapes, so keys may contain `.`, `]` or `"`.
    let i = 2;
    while (i < rest.length && rest[i] !== '"') i += rest[i] === '\\' ? 2 : 1;
    if (rest[i] === '"' && rest[i + 1] === ']') {
      return { key: JSON.parse(rest.slice(1, i + 1)) as string, length: i + 2 };
    }
  }
  throw new AddressError(`"${text}" has a malformed instance key at "${rest}": use [0] or ["key"]`);
}

/** Parses a module path such as `module.app[0].module.db` (empty string = root). */
export function parseModulePath(text: string | undefined): ModuleStep[] {
  if (text === undefined || text.trim() === '') return [];
  const segs = segments(text);
  if (segs.length % 2 !== 0) throw new AddressError(`"${text}" is not a module path: expected module.NAME pairs`);
  const steps: ModuleStep[] = [];
  for (let i = 0; i < segs.length; i += 2) {
    if (segs[i].name !== 'module' || segs[i].key !== undefined) {
      throw new AddressError(`"${text}" is not a module path: expected "module" at segment ${i + 1}`);
    }
    const step = segs[i + 1];
    steps.push(step.key === undefined ? { name: step.name } : { name: step.name, key: step.key });
  }
  return steps;
}

/** Parses `[module.M[k].]…[data.]TYPE.NAME[key]`. */
export function parseResourceAddress(text: string): ResourceAddress {
  const segs = segments(text);
  const modules: ModuleStep[] = [];
  let i = 0;
  while (i + 1 < segs.length && segs[i].name === 'module' && segs[i].key === undefined && segs.length - i > 2) {
    const step = segs[i + 1];
    modules.push(step.key === undefined ? { name: step.name } : { name: step.name, key: step.key });
    i += 2;
  }
  if (segs[i]?.name === 'module') {
    throw new AddressError(`"${text}" names a module, not a resource: expected [module.NAME.]…TYPE.NAME`);
  }
  let mode: ResourceMode = 'managed';
  if (segs[i]?.name === 'data' && segs[i].key === undefined && segs.length - i === 3) {
    mode = 'data';
    i += 1;
  }
  if (segs.length - i !== 2 || segs[i].key !== undefined) {
    throw new AddressError(`"${text}" is not a resource address: expected [module.NAME.]…[data.]TYPE.NAME[key]`);
  }
  const index = segs[i + 1].key;
  return { modules, mode, type: segs[i].name, name: segs[i + 1].name, ...(index === undefined ? {} : { index }) };
}

export function formatKey(key: InstanceKey): string {
  return typeof key === 'number' ? `[${key}]` : `[${JSON.stringify(key)}]`;
}

export function formatModulePath(modules: readonly ModuleStep[], withKeys: boolean): string {
  return modules.map((m) => `module.${m.name}${withKeys && m.key !== undefined ? formatKey(m.key) : ''}`).join('.');
}

function join(prefix: string, rest: string): string {
  return prefix === '' ? rest : `${prefix}.${rest}`;
}

/** The instance address Terraform prints: `module.a[0].T.name["k"]`. */
export function formatInstanceAddress(a: ResourceAddress): string {
  const local = `${a.mode === 'data' ? 'data.' : ''}${a.type}.${a.name}${a.index === undefined ? '' : formatKey(a.index)}`;
  return join(formatModulePath(a.modules, true), local);
}

/** The config address (what `dependencies`, `removed.from` and protection lists use): no instance keys anywhere. */
export function formatConfigAddress(a: Pick<ResourceAddress, 'modules' | 'mode' | 'type' | 'name'>): string {
  return join(formatModulePath(a.modules, false), `${a.mode === 'data' ? 'data.' : ''}${a.type}.${a.name}`);
}
