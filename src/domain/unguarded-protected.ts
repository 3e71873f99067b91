import { attributeNamed, blocksOfType, type HclAttribute } from './hcl/body-parser';
import { isTrivia } from './hcl/lexer';
import { dirOf } from './hcl/module-tree';
import { parseHclFile, type ParsedHcl } from './hcl/native-occurrences';
import { protectedDeclarations } from './hcl/protect-annotations';
import { readTemplateConfig } from './hcl/template-config';
import { syntaxOf, type TemplateFile } from './hcl/template-file';
import { lookupReplacement } from './type-map';

function exprText(parsed: ParsedHcl, attr: HclAttribute): string {
  return parsed.tokens
    .slice(attr.exprStart, attr.exprEnd)
    .filter((t) => !isTrivia(t))
    .map((t) => t.text)
    .join('');
}

/** The `from` of every root-folder `removed { lifecycle { destroy = false } }` block (native syntax). */
function keptAddresses(files: readonly TemplateFile[]): Set<string> {
  const kept = new Set<string>();
  for (const f of files) {
    const kind = syntaxOf(f.path);
    if (kind.syntax !== 'native' || kind.dialect !== 'config' || dirOf(f.path) !== '') continue;
    const parsed = parseHclFile(f.path, f.content, 'config');
    for (const block of blocksOfType(parsed.items, 'removed')) {
      const from = attributeNamed(block.body, 'from');
      const destroy = blocksOfType(block.body, 'lifecycle').map((l) => attributeNamed(l.body, 'destroy'))[0];
      if (from && destroy && exprText(parsed, destroy) === 'false') kept.add(exprText(parsed, from));
    }
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
