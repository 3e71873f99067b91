import { protectedConfigAddresses } from './hcl/protect-annotations';
import { readTemplateConfig } from './hcl/template-config';
import type { TemplateFile } from './template-rewrite';
import { lookupDeprecated } from './type-map';

/** What a template version's source says about protection: its annotated resources, and whether it uses only _v1 types. */
export function templateProtection(files: TemplateFile[]): { annotatedAddresses: string[]; usesV1Types: boolean } {
  const model = readTemplateConfig(files);
  const deprecated = model.configFiles.flatMap((f) => f.outline.resources).some((r) => r.mode === 'managed' && lookupDeprecated('managed', r.type) !== undefined);
  return { annotatedAddresses: protectedConfigAddresses(files), usesV1Types: !deprecated };
}
