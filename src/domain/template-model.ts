import type { ResourceMode } from './type-map';

/**
 * How many instances a block has, as far as the text tells without evaluating it: a literal, the
 * Coder idiom `count = data.coder_workspace.X.start_count` (1 on start, 0 on stop), or unknown.
 */
export type CountExpr = number | { startCountOf: string } | 'unknown';
/** The instance keys of a `for_each`: a literal map's keys or `toset([...])` of string literals, else unknown. */
export type ForEachExpr = { keys: string[] } | 'unknown';

export interface TemplateResource {
  mode: ResourceMode;
  type: string;
  name: string;
  count?: CountExpr;
  forEach?: ForEachExpr;
  file: string;
}

/** A `removed` block: `from` is a config address (`T.name`, `module.m.T.name`) or a module (`module.m`). */
export interface RemovedBlock {
  from: string;
  destroy: boolean;
  file: string;
}

export interface MovedBlock {
  from: string;
  to: string;
  file: string;
}

/** The root module of a template, reduced to what decides which instances a plan touches. */
export interface TemplateModel {
  resources: TemplateResource[];
  removed: RemovedBlock[];
  moved: MovedBlock[];
  /** Names of the `module` blocks; their contents are not modelled. */
  modules: string[];
  protectedAddresses: string[];
}

/** The template cannot be modelled; the message names the file and the block. */
export class TemplateModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateModelError';
  }
}

type Body = Record<string, unknown>;

function isBody(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * hcl2json wraps every block body in an array (one element per block with that label); Terraform's
 * JSON syntax allows a bare object or an array. Both come out as a list of bodies.
 */
function bodies(value: unknown): Body[] {
  if (Array.isArray(value)) return value.filter(isBody);
  return isBody(value) ? [value] : [];
}

const START_COUNT = /^\$\{\s*data\.coder_workspace\.([A-Za-z_][A-Za-z0-9_-]*)\.start_count\s*\}$/;
const TOSET_LITERAL = /^\$\{\s*toset\(\s*(\[[\s\S]*\])\s*\)\s*\}$/;

function countExpr(value: unknown): CountExpr {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return Number(value);
    const ref = START_COUNT.exec(value);
    if (ref) return { startCountOf: `data.coder_workspace.${ref[1]}` };
  }
  return 'unknown';
}

function forEachExpr(value: unknown): ForEachExpr {
  if (isBody(value)) {
    const keys = Object.keys(value);
    // A key written as an expression (`(var.k) = …`) comes back as "${…}": its value is unknown.
    return keys.some((k) => k.includes('${')) ? 'unknown' : { keys: keys.sort() };
  }
  if (typeof value === 'string') {
    const list = TOSET_LITERAL.exec(value);
    if (list) {
      let items: unknown;
      try {
        // HCL string literals without interpolation read the same as JSON strings.
        items = JSON.parse(list[1]);
      } catch {
        return 'unknown';
      }
      if (Array.isArray(items) && items.every((i) => typeof i === 'string' && !i.includes('${'))) {
        return { keys: [...new Set(items as string[])].sort() };
      }
    }
  }
  // A literal tuple is not a valid for_each (Terraform wants a map or a set), so it is unknown too.
  return 'unknown';
}

/** `"${kubernetes_secret.x}"` (hcl2json) and `"kubernetes_secret.x"` (.tf.json) both name the address. */
function staticReference(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const inner = /^\$\{\s*([\s\S]*?)\s*\}$/.exec(value);
  return (inner ? inner[1] : value).trim() || undefined;
}

function isOverrideFile(file: string): boolean {
  const base = file.split(/[\\/]/).pop() ?? file;
  return /^(.*_)?override\.tf(\.json)?$/.test(base);
}

function blocksOf(json: Body, mode: ResourceMode, file: string): TemplateResource[] {
  const out: TemplateResource[] = [];
  for (const byType of bodies(json[mode === 'managed' ? 'resource' : 'data'])) {
    for (const [type, byName] of Object.entries(byType)) {
      for (const names of bodies(byName)) {
        for (const [name, value] of Object.entries(names)) {
          for (const body of bodies(value)) {
            out.push({
              mode,
              type,
              name,
              ...('count' in body ? { count: countExpr(body.count) } : {}),
              ...('for_each' in body ? { forEach: forEachExpr(body.for_each) } : {}),
              file,
            });
          }
        }
      }
    }
  }
  return out;
}

function removedOf(json: Body, file: string): RemovedBlock[] {
  return bodies(json.removed).flatMap((block, i) => {
    const from = staticReference(block.from);
    if (from === undefined) throw new TemplateModelError(`${file}: removed block #${i + 1} has no "from" address`);
    const lifecycle = bodies(block.lifecycle)[0];
    // Only a literal false keeps the object; anything else is read as the default, destroy = true.
    return [{ from, destroy: lifecycle?.destroy !== false, file }];
  });
}

function movedOf(json: Body, file: string): MovedBlock[] {
  return bodies(json.moved).flatMap((block, i) => {
    const from = staticReference(block.from);
    const to = staticReference(block.to);
    if (from === undefined || to === undefined) throw new TemplateModelError(`${file}: moved block #${i + 1} needs "from" and "to"`);
    return [{ from, to, file }];
  });
}

const keyOf = (r: Pick<TemplateResource, 'mode' | 'type' | 'name'>) =>
  `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`;

/**
 * Builds the model from the JSON that `@cdktf/hcl2json` returns for each .tf file (or a parsed
 * .tf.json), merged as Terraform merges a directory: override files last, changing count/for_each.
 */
export function buildTemplateModel(parsed: readonly { file: string; json: unknown }[], protectedAddresses: readonly string[] = []): TemplateModel {
  const resources = new Map<string, TemplateResource>();
  const removed: RemovedBlock[] = [];
  const moved: MovedBlock[] = [];
  const modules = new Set<string>();
  const ordered = [...parsed.filter((p) => !isOverrideFile(p.file)), ...parsed.filter((p) => isOverrideFile(p.file))];
  for (const { file, json } of ordered) {
    if (!isBody(json)) throw new TemplateModelError(`${file}: expected the parsed file to be an object, got ${Array.isArray(json) ? 'an array' : typeof json}`);
    const blocks = [...blocksOf(json, 'managed', file), ...blocksOf(json, 'data', file)];
    for (const block of blocks) {
      const key = keyOf(block);
      const existing = resources.get(key);
      if (isOverrideFile(file)) {
        if (!existing) continue; // Terraform rejects an override of a missing block; nothing to model.
        const merged: TemplateResource = { ...existing };
        if (block.count !== undefined) {
          merged.count = block.count;
          delete merged.forEach;
        }
        if (block.forEach !== undefined) {
          merged.forEach = block.forEach;
          delete merged.count;
        }
        resources.set(key, merged);
        continue;
      }
      if (existing) {
        throw new TemplateModelError(
          `${block.file}: ${key} is declared twice (also in ${existing.file}); Terraform rejects duplicate blocks. Keep one.`,
        );
      }
      resources.set(key, block);
    }
    removed.push(...removedOf(json, file));
    moved.push(...movedOf(json, file));
    for (const byName of bodies(json.module)) for (const name of Object.keys(byName)) modules.add(name);
  }
  return {
    resources: [...resources.values()],
    removed,
    moved,
    modules: [...modules].sort(),
    protectedAddresses: [...protectedAddresses],
  };
}
