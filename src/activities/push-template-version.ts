import { blobStep } from './blob-step';
import { heartbeatIfInActivity } from './heartbeat';
import { coderStep, refuse } from './failures';
import type { ActivityDeps } from './ports';
import { settingsToCarry } from '../domain/version-settings';

/**
 * Uploads the archive and creates the version, named after the archive's hash so a retry finds
 * the version an earlier attempt created instead of making a second one. The version takes the
 * variable values and provisioner tags of the version its source came from (see
 * domain/version-settings): Coder gives a bare push the defaults.
 */
export function makePushTemplateVersion({ coder, blobs }: ActivityDeps) {
  return async function pushTemplateVersion(input: {
    subject: string;
    organizationId: string;
    templateId: string;
    sourceRef: string;
    versionName: string;
    /** The version whose source was rewritten: its variable values and tags are carried over. */
    sourceVersionId: string;
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
      const settings = settingsToCarry({ versionName: source.name, variables, tags: source.job.tags ?? {} });
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
