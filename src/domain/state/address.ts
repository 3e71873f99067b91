/**
 * Terraform resource addresses as they appear in state: instance addresses for humans and the CLI
 * (`module.app[0].kubernetes_deployment.main["a"]`), config addresses in `dependencies`
 * (`module.app.kubernetes_secret.s`, no keys) and object addresses in `check_results`.
 */

export type ResourceMode = 'managed' | 'data';
export type IndexKey = number | string;

export interface ResourceLocation {
  /** Module instance path as state writes it (`module.app[0]`), absent at the root. */
  readonly module?: string;
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
}

export interface ModuleStep {
  readonly name: string;
  readonly key?: IndexKey;
}

export interface ParsedResourceAddress {
  readonly modules: readonly ModuleStep[];
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
  readonly key?: IndexKey;
  /** Where the type sits in the parsed text, so a rename can replace exactly those characters. */
  readonly typeStart: number;
  readonly typeEnd: number;
}

/** `[0]` for count, `["key"]` for for_each (JSON quoting, which matches Terraform's for plain keys). */
export function formatIndexKey(key: IndexKey): string {
  return typeof key === 'number' ? `[${key}]` : `[${JSON.stringify(key)}]`;
}

/** `module.x[1].data.kubernetes_secret.s`: the resource without an instance key. */
export function formatResourceAddress(resource: ResourceLocation): string {
  const prefix = resource.module ? `${resource.module}.` : '';
  const mode = resource.mode === 'data' ? 'data.' : '';
  return `${prefix}${mode}${resource.type}.${resource.name}`;
}

/** `module.x[1].kubernetes_deployment.main["key"]`, the form `terraform state list` prints. */
export function formatInstanceAddress(resource: ResourceLocation, key?: IndexKey): string {
  return formatResourceAddress(resource) + (key === undefined ? '' : formatIndexKey(key));
}

/**
 * A `dependencies[]` entry or a resource `config_addr` of check_results: module names without
 * keys, then an optional `data.`, the type and the name. Undefined when the text is not one.
 */
export function parseConfigResourceAddress(text: string): ParsedResourceAddress | undefined {
  return parseAddress(text, false);
}

/** A resource instance address such as a check_results `object_addr`; keys allowed everywhere. */
export function parseResourceInstanceAddress(text: string): ParsedResourceAddress | undefined {
  return parseAddress(text, true);
}

/** The same address with another type, every other character kept as written. */
export function withType(text: string, parsed: ParsedResourceAddress, newType: string): string {
  return text.slice(0, parsed.typeStart) + newType + text.slice(parsed.typeEnd);
}

const IDENT = /[A-Za-z_][A-Za-z0-9_-]*/y;
const INT_KEY = /(0|[1-9][0-9]*)\]/y;

function parseAddress(text: string, keysAllowed: boolean): ParsedResourceAddress | undefined {
  let pos = 0;
  const ident = (): string | undefined => {
    IDENT.lastIndex = pos;
    const m = IDENT.exec(text);
    if (!m) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const key = (): IndexKey | undefined | null => {
    if (text[pos] !== '[') return undefined;
    if (!keysAllowed) return null;
    pos++;
    if (text[pos] === '"') {
      const end = closingQuote(text, pos);
      if (end < 0 || text[end + 1] !== ']') return null;
      let value: unknown;
      try {
        value = JSON.parse(text.slice(pos, end + 1));
      } catch {
        return null;
      }
      pos = end + 2;
      return value as string;
    }
    INT_KEY.lastIndex = pos;
    const m = INT_KEY.exec(text);
    if (!m) return null;
    pos += m[0].length;
    return Number(m[1]);
  };

  const modules: ModuleStep[] = [];
  while (text.startsWith('module.', pos)) {
    pos += 'module.'.length;
    const name = ident();
    if (!name) return undefined;
    const k = key();
    if (k === null) return undefined;
    if (text[pos] !== '.') return undefined;
    pos++;
    modules.push(k === undefined ? { name } : { name, key: k });
  }
  let mode: ResourceMode = 'managed';
  if (text.startsWith('data.', pos)) {
    mode = 'data';
    pos += 'data.'.length;
  }
  const typeStart = pos;
  const type = ident();
  if (!type) return undefined;
  const typeEnd = pos;
  if (text[pos] !== '.') return undefined;
  pos++;
  const name = ident();
  if (!name) return undefined;
  const k = key();
  if (k === null || pos !== text.length) return undefined;
  return { modules, mode, type, name, ...(k === undefined ? {} : { key: k }), typeStart, typeEnd };
}

function closingQuote(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
