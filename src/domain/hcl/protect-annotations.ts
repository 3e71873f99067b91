import { isPersistentType } from '../type-map';
import type { ResourceDeclaration } from './config-outline';
import type { Token } from './lexer';
import { dirOf } from './module-tree';
import { namespacesHoldingProtected } from './namespace-holders';
import { readTemplateConfig, type TemplateConfig } from './template-config';
import type { TemplateFile } from './template-file';

const ANNOTATION = /^(#|\/\/)\s*wsmigrate:protect(\s|$)/;

/**
 * Resources marked `# wsmigrate:protect` (or `// wsmigrate:protect`) on the line directly above
 * their `resource` header. A blank line between the comment and the block breaks the link, so a
 * stray comment can never protect (or fail to protect) the wrong block. `line` is the header's
 * line; `address` is `T.name` within the file's own module.
 */
export function findProtectAnnotations(files: TemplateFile[]): { file: string; line: number; address: string }[] {
  return annotatedResources(readTemplateConfig(files)).map((r) => ({ file: r.file, line: r.line, address: `${r.type}.${r.name}` }));
}

/**
 * Config addresses (`T.name`, or `module.m.T.name` inside a local module) of every managed
 * resource that must never be destroyed outside a workspace delete: persistent kinds (PVC, PV,
 * under either name), annotated resources, and the template's namespaces that hold either.
 * Sorted, without duplicates.
 */
export function protectedConfigAddresses(files: TemplateFile[]): string[] {
  const model = readTemplateConfig(files);
  const addresses = protectedDeclarations(model)
    .flatMap(({ resource: r }) => model.modules.prefixesOf(dirOf(r.file)).map((prefix) => `${prefix}${r.type}.${r.name}`));
  return [...new Set(addresses)].sort();
}

/** Why a resource is protected: its kind, its annotation, or a protected resource inside it (a namespace). */
export type ProtectionReason = 'persistent-kind' | 'annotation' | 'holds-protected';

/** The managed resource declarations of `model` that are protected, each with why. */
export function protectedDeclarations(model: TemplateConfig): { resource: ResourceDeclaration; why: ProtectionReason }[] {
  const annotated = new Set(annotatedResources(model));
  const direct = model.configFiles
    .flatMap((f) => f.outline.resources)
    .filter((r) => r.mode === 'managed')
    .flatMap((r) => {
      const why: ProtectionReason | undefined = annotated.has(r) ? 'annotation' : isPersistentType(r.type) ? 'persistent-kind' : undefined;
      return why ? [{ resource: r, why }] : [];
    });
  const directSet = new Set(direct.map((d) => d.resource));
  const holders = namespacesHoldingProtected(model, directSet)
    .filter((r) => !directSet.has(r))
    .map((resource) => ({ resource, why: 'holds-protected' as const }));
  return [...direct, ...holders];
}

/** The managed resource declarations of `model` that carry a protect annotation. */
export function annotatedResources(model: TemplateConfig): ResourceDeclaration[] {
  return model.configFiles.flatMap((f) =>
    f.syntax === 'native'
      ? f.outline.resources.filter((r) => r.mode === 'managed' && r.headerIndex !== undefined && hasAnnotationAbove(f.parsed.tokens, r.headerIndex))
      : [],
  );
}

function hasAnnotationAbove(tokens: readonly Token[], headerIndex: number): boolean {
  let j = headerIndex - 1;
  const skipSpace = (): void => {
    while (j >= 0 && tokens[j].kind === 'space') j--;
  };
  skipSpace();
  if (j < 0 || tokens[j].kind !== 'newline') return false;
  j--;
  skipSpace();
  if (j < 0 || tokens[j].kind !== 'comment' || !ANNOTATION.test(tokens[j].text)) return false;
  j--;
  skipSpace();
  return j < 0 || tokens[j].kind === 'newline';
}
