import type { MigrateOrganizationInput } from '../domain/organization-input';
import { fleetInputFromOptions, templatesOf } from './fleet-options';

/** `fleet start --org … --all-templates` (or several --template) → migrateOrganization's input: the fleet settings shared by every template. */
export function organizationInputFromOptions(o: Record<string, unknown>, defaultApprovers: readonly string[]): MigrateOrganizationInput {
  const { template: _template, targetVersionId: _version, ...shared } = fleetInputFromOptions({ ...o, template: templatesOf(o)[0] ?? 'unused' }, defaultApprovers);
  return { ...shared, ...(o.allTemplates === true ? { allTemplates: true } : { templates: templatesOf(o) }) };
}
