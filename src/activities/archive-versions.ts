import { coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface VersionArchivePlan {
  templateId: string;
  /** Versions no workspace's latest build uses, other than the target and the active one, not archived yet. */
  versions: { id: string; name: string }[];
  /** Versions still in use by some workspace's latest build (kept). */
  inUse: { id: string; name: string; workspaces: number }[];
}

async function usage(deps: ActivityDeps, template: string): Promise<Map<string, number>> {
  const workspaces = await coderStep('archive plan', `template ${template}`, () => deps.coder.workspacesOfTemplate(template));
  const count = new Map<string, number>();
  for (const ws of workspaces) {
    if (ws.latest_build.transition === 'delete') continue;
    count.set(ws.latest_build.template_version_id, (count.get(ws.latest_build.template_version_id) ?? 0) + 1);
  }
  return count;
}

/**
 * Which old versions can be archived, so nobody builds a migrated workspace with the deprecated
 * types again (measured with real Terraform: that "downgrade" destroys the PVC). Reads only.
 */
export function makePlanVersionArchive(deps: ActivityDeps) {
  return async function planVersionArchive(input: { organization: string; template: string; targetVersionId: string }): Promise<VersionArchivePlan> {
    const subject = `template ${input.organization}/${input.template}`;
    const t = await coderStep('archive plan', subject, () => deps.coder.templateByName(input.organization, input.template));
    const versions = await coderStep('archive plan', subject, () => deps.coder.templateVersions(t.id));
    const used = await usage(deps, input.template);
    const plan: VersionArchivePlan = { templateId: t.id, versions: [], inUse: [] };
    for (const v of versions) {
      if (v.archived || v.id === input.targetVersionId || v.id === t.active_version_id) continue;
      const n = used.get(v.id) ?? 0;
      if (n > 0) plan.inUse.push({ id: v.id, name: v.name, workspaces: n });
      else plan.versions.push({ id: v.id, name: v.name });
    }
    return plan;
  };
}

/** Archives the approved versions, checking again right before that no workspace moved onto one meanwhile. */
export function makeArchiveTemplateVersions(deps: ActivityDeps) {
  return async function archiveTemplateVersions(input: { template: string; versionIds: string[] }): Promise<{ archived: string[]; keptInUse: string[] }> {
    const used = await usage(deps, input.template);
    const archived: string[] = [];
    const keptInUse: string[] = [];
    for (const id of input.versionIds) {
      if ((used.get(id) ?? 0) > 0) {
        keptInUse.push(id);
        continue;
      }
      const v = await coderStep('archive', `template ${input.template}`, () => deps.coder.templateVersion(id));
      if (!v.archived) await coderStep('archive', `template ${input.template}`, () => deps.coder.archiveTemplateVersion(id));
      archived.push(id);
    }
    return { archived, keptInUse };
  };
}
