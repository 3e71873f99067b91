import { isPersistentType } from '../type-map';
import { claimMakingSets } from './claim-making-sets';
import type { ResourceDeclaration } from './config-outline';
import type { Token } from './lexer';
import { claimMakingManifests, persistentManifests } from './manifest-kinds';
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
 * under either name, or as a `kubernetes_manifest`), annotated resources, stateful sets whose claims are deleted with them, and the
 * template's namespaces that hold any of those or a stateful set's claims.
 * Sorted, without duplicates.
 */
export function protectedConfigAddresses(files: TemplateFile[]): string[] {
  const model = readTemplateConfig(files);
  const addresses = protectedDeclarations(model)
    .flatMap(({ resource: r }) => model.modules.prefixesOf(dirOf(r.file)).map((prefix) => `${prefix}${r.type}.${r.name}`));
  return [...new Set(addresses)].sort();
}

/**
 * Why a resource is protected: its kind, its annotation, claims Kubernetes deletes with it (a stateful
 * set whose retention policy says `when_deleted = "Delete"`), or protected data inside it (a namespace).
 */
export type ProtectionReason = 'persistent-kind' | 'annotation' | 'deletes-its-claims' | 'holds-protected';

/** The managed resource declarations of `model` that are protected, each with why. */
export function protectedDeclarations(model: TemplateConfig): { resource: ResourceDeclaration; why: ProtectionReason }[] {
  const annotated = new Set(annotatedResources(model));
  const sets = claimMakingSets(model);
  const deletingClaims = new Set(sets.filter((s) => s.deletesClaims).map((s) => s.resource));
  const volumeManifests = new Set(persistentManifests(model));
  const direct = model.configFiles
    .flatMap((f) => f.outline.resources)
    .filter((r) => r.mode === 'managed')
    .flatMap((r) => {
      const why: ProtectionReason | undefined = annotated.has(r)
        ? 'annotation'
        : isPersistentType(r.type) || volumeManifests.has(r)
          ? 'persistent-kind'
          : deletingClaims.has(r)
            ? 'deletes-its-claims'
            : undefined;
      return why ? [{ resource: r, why }] : [];
    });
  const directSet = new Set(direct.map((d) => d.resource));
  // A namespace's delete takes every claim in it, a retained stateful set's claims too (typed, or as a
  // manifest), and a helm release's: a chart's persistence is claims Terraform never sees.
  const helmReleases = model.configFiles.flatMap((f) => f.outline.resources).filter((r) => r.mode === 'managed' && r.type === 'helm_release');
  const holdingData = new Set([...directSet, ...sets.map((s) => s.resource), ...claimMakingManifests(model), ...helmReleases]);
  const holders = namespacesHoldingProtected(model, holdingData)
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
