import { CoderVersionError, describeVersionGate, parseCoderVersion, supportsStateInBuilds } from '../domain/coder-version';
import { coderStep, refuse, refuseOn } from './failures';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';

export interface TemplatePreflight {
  organizationId: string;
  templateId: string;
  activeVersionId: string;
  coderVersion: string;
}

export function makePreflightTemplate({ coder }: ActivityDeps) {
  return async function preflightTemplate(input: { organization: string; template: string }): Promise<TemplatePreflight> {
    const subject = `template ${input.organization}/${input.template}`;
    const info = await coderStep('preflight', subject, () => coder.buildInfo());
    const version = refuseOn('preflight', subject, [CoderVersionError], () => parseCoderVersion(info.version));
    if (!supportsStateInBuilds(version)) throw refuse('preflight', subject, describeVersionGate(version));
    const t = await coderStep('preflight', subject, () => coder.templateByName(input.organization, input.template));
    // The template's workspaces are built next (by the fleet, or by hand): a token that cannot start them is refused now.
    await refuseUnlessTokenMayMigrate(coder, subject, { organizationId: t.organization_id, organization: input.organization, templateId: t.id, template: input.template });
    return { organizationId: t.organization_id, templateId: t.id, activeVersionId: t.active_version_id, coderVersion: info.version };
  };
}
