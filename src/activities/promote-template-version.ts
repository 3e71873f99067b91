import { coderStep, refuse } from './failures';
import type { ActivityDeps } from './ports';

export function makePromoteTemplateVersion({ coder }: ActivityDeps) {
  return async function promoteTemplateVersion(input: { subject: string; templateId: string; versionId: string; sourceVersionId?: string }): Promise<{ promoted: boolean }> {
    const t = await coderStep('promote', input.subject, () => coder.template(input.templateId));
    if (t.active_version_id === input.versionId) return { promoted: false };
    // The pushed version is the rewrite of the version that was active when the run pulled it. If
    // someone promoted another since (while the gate waited), promoting ours would silently undo
    // their change: their version is not what was rewritten, reported and approved.
    if (input.sourceVersionId && t.active_version_id !== input.sourceVersionId) {
      const active = await coder.templateVersion(t.active_version_id).then(
        (v) => `${v.name} (${t.active_version_id})`,
        () => t.active_version_id,
      );
      throw refuse(
        'promote',
        input.subject,
        `the active version changed since it was rewritten: ${active} was promoted after ${input.sourceVersionId}, the version the pushed one (${input.versionId}) was rewritten from. ` +
          `Promoting it would undo that change, so nothing was promoted (the pushed version stays inactive). Run 'wsmigrate migrate template' again to rewrite the version active now.`,
      );
    }
    await coderStep('promote', input.subject, () => coder.promoteTemplateVersion(input.templateId, input.versionId));
    return { promoted: true };
  };
}
