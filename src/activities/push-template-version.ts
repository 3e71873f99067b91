import { blobStep } from './blob-step';
import { heartbeatIfInActivity } from './heartbeat';
import { coderStep, refuse } from './failures';
import { TemplateVariablesError } from '../ports/template-variables';
import type { ActivityDeps, TemplateVariableValues } from './ports';
import { settingsToCarry } from '../domain/version-settings';

/**
 * Uploads the archive and creates the version, named after the archive's hash so a retry finds
 * the version an earlier attempt created instead of making a second one. The version takes the
 * variable values and provisioner tags of the version its source came from (see
 * domain/version-settings): Coder gives a bare push the defaults.
 */
export function makePushTemplateVersion({ coder, blobs, templateVariables }: ActivityDeps) {
  return async function pushTemplateVersion(input: {
    subject: string;
    organizationId: string;
    templateId: string;
    sourceRef: string;
    versionName: string;
    /** The version whose source was rewritten: its variable values and tags are carried over. */
    sourceVersionId: string;
    /** Names of the organization and template, to find the values given for sensitive variables. */
    organization?: string;
    template?: string;
  }): Promise<{ versionId: string; versionName: string }> {
    const step = 'push template version';
    const existing = (await coderStep(step, input.subject, () => coder.templateVersions(input.templateId))).find(
      (v) => v.name === input.versionName,
    );
    let versionId = existing?.id;
    if (!versionId) {
      const [source, variables] = await Promise.all([
        coderStep(step, input.subject, () => coder.templateVersion(input.sourceVersionId)),
        coderStep(step, input.subject, () => coder.templateVersionVariables(input.sourceVersionId)),
      ]);
      const given = await sensitiveValuesFor(templateVariables, step, input, variables);
      const settings = settingsToCarry({ versionName: source.name, variables, tags: source.job.tags ?? {}, ...given });
      if (!settings.ok) throw refuse(step, input.subject, settings.reason);
      const tar = await blobStep(step, input.subject, () => blobs.get(input.sourceRef));
      const file = await coderStep(step, input.subject, () => coder.uploadFile(tar));
      const created = await coderStep(step, input.subject, () =>
        coder.createTemplateVersion(input.organizationId, {
          template_id: input.templateId,
          file_id: file.hash,
          name: input.versionName,
          message: 'wsmigrate: kubernetes resources renamed to their _v1 types, with removed{} guards for persistent volumes',
          storage_method: 'file',
          provisioner: 'terraform',
          user_variable_values: settings.userVariableValues,
          provisioner_tags: settings.provisionerTags,
        }),
      );
      versionId = created.id;
    }
    const done = await coderStep(step, input.subject, () => coder.waitForTemplateVersion(versionId as string, { onPoll: (v) => heartbeatIfInActivity({ versionId: v.id, status: v.job.status }) }));
    if (done.job.status !== 'succeeded') {
      throw refuse(step, input.subject, `the new version ${input.versionName} failed to import (${done.job.status}: ${done.job.error ?? 'no error text'}); the active version is unchanged`);
    }
    return { versionId, versionName: input.versionName };
  };
}

/** The values the worker was given for this template's sensitive variables, read only when it has one. */
export async function sensitiveValuesFor(
  source: TemplateVariableValues | undefined,
  step: string,
  input: { subject: string; organization?: string | undefined; template?: string | undefined },
  variables: readonly { sensitive: boolean }[],
): Promise<{ sensitiveValues?: Readonly<Record<string, string>>; sensitiveValuesHint?: string }> {
  if (!source || !input.organization || !input.template || !variables.some((v) => v.sensitive)) return {};
  const { organization, template } = input;
  let values: Readonly<Record<string, string>> | undefined;
  try {
    values = await source.valuesFor(organization, template);
  } catch (err) {
    if (err instanceof TemplateVariablesError) throw refuse(step, input.subject, err.message);
    throw err;
  }
  return { ...(values ? { sensitiveValues: values } : {}), sensitiveValuesHint: source.whereFor(organization, template) };
}
