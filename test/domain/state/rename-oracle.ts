/**
 * An independent, object-level statement of what a rename must produce, for tests: it works on
 * JSON.parse output and knows nothing of spans, so it can judge the text-splicing implementation.
 */
import { lookupDeprecated, type ResourceMode } from '../../../src/domain/type-map';

type Json = Record<string, unknown>;

export function sameReplacement(mode: ResourceMode, type: string): string | undefined {
  const m = lookupDeprecated(mode, type);
  return m?.compat === 'SAME' ? m.replacement : undefined;
}

/** Renames the type inside an address string by splitting on dots outside brackets. */
export function renameAddress(address: string): string {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let current = '';
  for (let i = 0; i < address.length; i++) {
    const c = address[i];
    if (inString) {
      current += c;
      if (c === '\\') current += address[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      current += c;
    } else if (c === '[') {
      depth++;
      current += c;
    } else if (c === ']') {
      depth--;
      current += c;
    } else if (c === '.' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  let i = 0;
  while (parts[i] === 'module') i += 2;
  let mode: ResourceMode = 'managed';
  if (parts[i] === 'data') {
    mode = 'data';
    i++;
  }
  if (parts.length - i !== 2) return address;
  const replacement = sameReplacement(mode, parts[i]);
  if (!replacement) return address;
  parts[i] = replacement;
  return parts.join('.');
}

export function expectedRename(input: Json): Json {
  const out = structuredClone(input) as Json & { resources: Json[]; check_results?: Json[] | null; serial: number };
  out.serial = (input.serial as number) + 1;
  for (const resource of out.resources) {
    const replacement = sameReplacement(resource.mode as ResourceMode, resource.type as string);
    if (replacement) resource.type = replacement;
    for (const instance of resource.instances as Json[]) {
      if (Array.isArray(instance.dependencies)) instance.dependencies = (instance.dependencies as string[]).map(renameAddress);
    }
  }
  for (const check of out.check_results ?? []) {
    if (check.object_kind !== 'resource') continue;
    check.config_addr = renameAddress(check.config_addr as string);
    for (const object of (check.objects as Json[] | null) ?? []) object.object_addr = renameAddress(object.object_addr as string);
  }
  return out;
}

/**
 * The text cut into JSON string literals and the runs between them. Two documents that differ
 * only in some string tokens and one number cut into the same number of pieces, so the pieces can
 * be compared one by one: this is how tests prove every other byte stayed where it was.
 */
export function textPieces(text: string): string[] {
  return text.match(/"(?:[^"\\]|\\.)*"|[^"]+/gs) ?? [];
}
