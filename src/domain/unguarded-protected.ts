import { removedBlocksIn } from './hcl/guard-blocks';
import { dirOf } from './hcl/module-tree';
import { protectedDeclarations } from './hcl/protect-annotations';
import { readTemplateConfig } from './hcl/template-config';
import { syntaxOf, type TemplateFile } from './hcl/template-file';
import { lookupReplacement } from './type-map';

/** The `from` of every root-folder `removed { lifecycle { destroy = false } }` block (native syntax). */
export function keptAddresses(files: readonly TemplateFile[]): Set<string> {
  const kept = new Set<string>();
  for (const f of files) {
    const kind = syntaxOf(f.path);
    if (kind.syntax !== 'native' || kind.dialect !== 'config' || dirOf(f.path) !== '') continue;
    for (const block of removedBlocksIn(f.path, f.content)) if (block.keeps) kept.add(block.from);
  }
  return kept;
}

/**
 * The old (deprecated) addresses of the protected resources (PVCs, PVs, `# wsmigrate:protect`) that a
 * `_v1` version declares with their versioned type but keeps no `removed { lifecycle { destroy = false } }`
 * guard for. A workspace whose state still holds the old type, built on such a version, has Terraform
 * destroy the old object (it is in the state and no longer in the config) before creating the `_v1` one.
 * A removed block Terraform would read otherwise (JSON syntax, inside a module) is not counted: missing.
 */
export function unguardedProtected(files: readonly TemplateFile[]): string[] {
  const model = readTemplateConfig(files);
  const kept = keptAddresses(files);
  const missing: string[] = [];
  for (const { resource: r } of protectedDeclarations(model)) {
    const twin = lookupReplacement('managed', r.type);
    if (!twin) continue;
    for (const prefix of model.modules.prefixesOf(dirOf(r.file))) {
      const old = `${prefix}${twin.deprecated}.${r.name}`;
      if (!kept.has(old)) missing.push(old);
    }
  }
  return [...new Set(missing)];
}
