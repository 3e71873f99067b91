import { dirOf } from './hcl/module-tree';
import { readTemplateConfig } from './hcl/template-config';
import type { TemplateFile } from './hcl/template-file';
import { AddressError, parseModulePath } from './plan/address';
import { formatInstanceAddress, type StateResourceView } from './state';
import { lookupDeprecated } from './type-map';

/** A deprecated instance inside a module whose renamed twin the target version cannot be shown to declare. */
export interface UncoveredModuleInstance {
  address: string;
  reason: string;
}

/**
 * Deprecated managed instances of a state that live in a module the target version cannot rename:
 * a module whose code is not in the template (registry, git, a path outside it), or a local module
 * that still declares the deprecated type. Renaming such an instance in the state while the module
 * still declares the old type makes the next build destroy it and create an empty twin.
 */
export function deprecatedInstancesOutsideTemplate(resources: readonly StateResourceView[], target: readonly TemplateFile[]): UncoveredModuleInstance[] {
  const model = readTemplateConfig(target);
  const out: UncoveredModuleInstance[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed' || !r.module || !lookupDeprecated('managed', r.type)) continue;
    let names: string[];
    try {
      names = parseModulePath(r.module).map((s) => s.name);
    } catch (err) {
      if (!(err instanceof AddressError)) throw err;
      names = [];
    }
    const where = model.modules.resolve(names);
    let reason: string | undefined;
    if (names.length === 0) {
      reason = `its module path "${r.module}" cannot be read, so the target version cannot be checked`;
    } else if (where.kind === 'external') {
      const { call } = where;
      reason = `${where.address} is called at ${call.file}:${call.line} from a source outside the template, so its code (and the type it declares) cannot be checked or renamed`;
    } else if (where.kind === 'local') {
      const stillOld = model.configFiles.some(
        (f) => f.outline.resources.some((d) => d.mode === 'managed' && d.type === r.type && d.name === r.name && dirOf(d.file) === where.dir),
      );
      if (stillOld) reason = `the target version's module folder "${where.dir}" still declares ${r.type}.${r.name}`;
    }
    if (reason === undefined) continue;
    for (const inst of r.instances) out.push({ address: formatInstanceAddress(r, inst.index_key), reason });
  }
  return out;
}


/**
 * Root resources the state holds under a deprecated type that the target version still declares
 * under that same type (`kubernetes_deployment.main`, file:line): such a version is not a migrated
 * one, so a renamed state would be planned as a delete of the _v1 resource. Only SAME pairs count:
 * DIFFERENT ones stay deprecated in a migrated template until they are imported by hand.
 */
export function stateTypesStillDeclared(resources: readonly StateResourceView[], target: readonly TemplateFile[]): string[] {
  const model = readTemplateConfig(target);
  const found: string[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed' || r.module || lookupDeprecated('managed', r.type)?.compat !== 'SAME') continue;
    for (const f of model.configFiles) {
      const d = f.outline.resources.find((x) => x.mode === 'managed' && x.type === r.type && x.name === r.name && dirOf(x.file) === '');
      if (d) found.push(`${r.type}.${r.name} (${d.file}:${d.line})`);
    }
  }
  return found;
}
