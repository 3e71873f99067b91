import { coderStep } from './failures';
import type { ActivityDeps } from './ports';

export function makePromoteTemplateVersion({ coder }: ActivityDeps) {
  return async function promoteTemplateVersion(input: { subject: string; templateId: string; versionId: string }): Promise<{ promoted: boolean }> {
    const t = await coderStep('promote', input.subject, () => coder.template(input.templateId));
    if (t.active_version_id === input.versionId) return { promoted: false };
    await coderStep('promote', input.subject, () => coder.promoteTemplateVersion(input.templateId, input.versionId));
    return { promoted: true };
  };
}
