import { bool, list, object, type Input, type Output } from './input-rules';
import { migrateFleetInputSchema } from './fleet-input';
import { nameSchema } from './migration-input';

const { template: _template, targetVersionId: _target, ...fleetShape } = migrateFleetInputSchema.shape;

/**
 * A deployment's migration: every template that needs it (or the named ones), each through its own
 * `migrateFleet`, with the fleet settings below shared by all of them.
 */
export const migrateOrganizationInputSchema = object({
  ...fleetShape,
  /** These templates (names); the others are left alone. */
  templates: list(nameSchema('template')).default([]),
  /** Every template of the organization whose active version declares deprecated types. */
  allTemplates: bool().default(false),
}).refine((v, addIssue) => {
  if (!v.allTemplates && v.templates.length === 0) addIssue('templates', 'name the templates to migrate, or set allTemplates: true for every template that needs it');
  if (v.allTemplates && v.templates.length > 0) addIssue('templates', 'pass either templates or allTemplates: true, not both');
});

export type MigrateOrganizationInput = Input<typeof migrateOrganizationInputSchema>;
export type MigrateOrganizationParams = Output<typeof migrateOrganizationInputSchema>;

/** One deployment-wide run per organization at a time. */
export function organizationWorkflowId(organization: string): string {
  return `wsmigrate-org/${organization}`;
}
