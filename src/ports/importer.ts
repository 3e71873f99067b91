import type { ImportStep } from '../domain/import-plan';
import type { TemplateFile } from '../domain/template-rewrite';

/**
 * Re-creates state entries by `terraform import` for types a rename cannot carry (DIFFERENT pairs).
 * It needs the template source, a provider and cluster credentials, so it is an adapter of its own.
 */
export interface Importer {
  importInstances(input: { stateText: string; steps: ImportStep[]; templateFiles: TemplateFile[] }): Promise<string>;
}
