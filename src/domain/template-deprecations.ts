import { readTemplateConfig } from './hcl/template-config';
import type { TemplateFile } from './hcl/template-file';
import { lookupDeprecated } from './type-map';

/**
 * The deprecated kubernetes types a template version declares (resources and data sources, in any
 * of its local modules), sorted: empty means the version is already on the `_v1` types, and a
 * fleet has nothing to do for the template.
 */
export function deprecatedTypesIn(files: readonly TemplateFile[]): string[] {
  const found = new Set<string>();
  for (const file of readTemplateConfig(files).configFiles) {
    for (const r of file.outline.resources) {
      if (lookupDeprecated(r.mode, r.type)) found.add(r.mode === 'data' ? `data.${r.type}` : r.type);
    }
  }
  return [...found].sort();
}
