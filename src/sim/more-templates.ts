import type { SimDeployment } from './deployment';
import type { TemplateRecord, User } from './model';
import { seedTemplate, seedWorkspace } from './seed-template';
import { K8S_TEMPLATE_MAIN_TF } from './template-source';

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
    const created = d.now();
    const template = await seedTemplate(d, admin, { name: spec.name, displayName: spec.name, files: [{ name: 'main.tf', content: source }], createdAt: created });
    for (let i = 0; i < (spec.workspaces ?? 3); i++) {
      await seedWorkspace(d, template, owners[i % owners.length] as User, `${spec.name}-${i + 1}`, created);
    }
    made.push(template);
  }
  return made;
}
