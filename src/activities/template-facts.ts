import { rootManagedDeclarations } from '../domain/downgrade-guard';
import type { TemplateFile } from '../domain/template-rewrite';
import { templateProtection } from '../domain/template-protection';

/**
 * What a template version's source says, read once per source and worker: the cached source loader
 * hands every workspace of a fleet the same file list for a version, and parsing its HCL again for
 * each workspace was the same work hundreds of times (the health check, the build watch, the
 * downgrade refusal). Results are frozen: they are shared.
 */
function perSource<T>(read: (files: readonly TemplateFile[]) => T): (files: readonly TemplateFile[]) => T {
  const known = new WeakMap<readonly TemplateFile[], T>();
  return (files) => {
    if (known.has(files)) return known.get(files) as T;
    const value = read(files);
    known.set(files, value);
    return value;
  };
}

export const protectionOf = perSource((files): { readonly annotatedAddresses: readonly string[]; readonly usesV1Types: boolean } => {
  const p = templateProtection([...files]);
  return Object.freeze({ annotatedAddresses: Object.freeze(p.annotatedAddresses), usesV1Types: p.usesV1Types });
});

export const rootDeclarationsOf = perSource(rootManagedDeclarations);
