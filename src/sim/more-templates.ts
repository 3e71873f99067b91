import type { SimDeployment } from './deployment';
import type { TemplateRecord, User, WorkspaceRecord } from './model';
import { packTar } from './tar-archive';
import { parseTemplateConfig } from './template-config';
import { K8S_TEMPLATE_MAIN_TF } from './template-source';
import { seededTemplateMeta } from './template-meta';

export interface MoreTemplateSpec {
  name: string;
  /** Default 3. */
  workspaces?: number;
  /** Its only version already uses the `_v1` types: a scan lists it as nothing to do. */
  versioned?: boolean;
}

/** The seeded template with every deprecated kubernetes type renamed to its `_v1` twin, as a migrated template reads. */
export function versionedTemplateSource(): string {
  return K8S_TEMPLATE_MAIN_TF.replace(/\bkubernetes_(deployment|persistent_volume_claim)\b(?!_v1)/g, 'kubernetes_$1_v1');
}

/**
 * Further templates of the same organization (a deployment usually has several Kubernetes
 * templates), each with its own first version and running workspaces whose homes carry their owner's data.
 */
export async function seedMoreTemplates(d: SimDeployment, admin: User, owners: readonly User[], specs: readonly MoreTemplateSpec[]): Promise<TemplateRecord[]> {
  const made: TemplateRecord[] = [];
  for (const spec of specs) {
    if ([...d.templates.values()].some((t) => t.name.toLowerCase() === spec.name.toLowerCase())) {
      throw new Error(`The simulator already has a template named ${spec.name}; give each template its own name.`);
    }
    const source = spec.versioned ? versionedTemplateSource() : K8S_TEMPLATE_MAIN_TF;
    const files = [{ name: 'main.tf', content: source }];
    const { file } = d.uploadFile(admin, await packTar(files), 'application/x-tar');
    const created = d.now();
    const template: TemplateRecord = {
      id: d.newId(),
      name: spec.name,
      meta: seededTemplateMeta(spec.name),
      organizationId: d.org.id,
      activeVersionId: d.newId(),
      createdById: admin.id,
      createdAt: created,
      updatedAt: created,
    };
    d.templates.set(template.id, template);
    d.versions.set(template.activeVersionId, {
      id: template.activeVersionId,
      templateId: template.id,
      organizationId: d.org.id,
      name: d.randomVersionName(),
      message: 'Uploaded from the CLI',
      job: { id: d.newId(), type: 'template_version_import', status: 'succeeded', fileId: file.id, createdAt: created, startedAt: created, completedAt: created, initiatorId: admin.id, workerId: d.org.id, logs: [] },
      createdById: admin.id,
      createdAt: created,
      updatedAt: created,
      archived: false,
      config: await parseTemplateConfig(files),
    });
    for (let i = 0; i < (spec.workspaces ?? 3); i++) {
      const owner = owners[i % owners.length] as User;
      const ws: WorkspaceRecord = {
        id: d.newId(),
        name: `${spec.name}-${i + 1}`,
        ownerId: owner.id,
        organizationId: d.org.id,
        templateId: template.id,
        createdAt: created,
        updatedAt: created,
        lastUsedAt: created,
        deleted: false,
        buildIds: [],
      };
      d.workspaces.set(ws.id, ws);
      await d.seedBuild(ws, template.activeVersionId, 'start', owner, `home of ${owner.username}`);
    }
    made.push(template);
  }
  return made;
}
