import { ApiError } from './api-error';
import type { SimDeployment } from './deployment';
import type { BuildParameterValue, TemplateRecord, User, WorkspaceRecord } from './model';
import { packTar } from './tar-archive';
import { parseTemplateConfig } from './template-config';
import { importVariables, missingVariablesMessage } from './template-variables';
import { templateVersionParameters } from './template-parameters';
import { seededTemplateMeta } from './template-meta';

export interface SeedTemplateSpec {
  name: string;
  displayName: string;
  files: { name: string; content: string }[];
  createdAt: string;
  /** The values its push gave its variables (`coder templates push --var`); the rest take their defaults. */
  variables?: { name: string; value: string }[];
  /** templates.use_classic_parameter_flow (default false: the dynamic flow, Coder's default for new templates). */
  useClassicParameterFlow?: boolean;
}

/** A template on one succeeded version of these files, as `coder templates push` leaves it. */
export async function seedTemplate(d: SimDeployment, admin: User, spec: SeedTemplateSpec): Promise<TemplateRecord> {
  const { file } = d.uploadFile(admin, await packTar(spec.files), 'application/x-tar');
  const created = spec.createdAt;
  const template: TemplateRecord = {
    id: d.newId(),
    name: spec.name,
    meta: { ...seededTemplateMeta(spec.displayName), useClassicParameterFlow: spec.useClassicParameterFlow ?? false },
    organizationId: d.org.id,
    activeVersionId: d.newId(),
    createdById: admin.id,
    createdAt: created,
    updatedAt: created,
  };
  d.templates.set(template.id, template);
  const config = await parseTemplateConfig(spec.files);
  const { variables, missing } = importVariables(config, spec.variables ?? []);
  if (missing.length > 0) throw new Error(`${missingVariablesMessage(missing)} (give each with --var NAME=VALUE)`);
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
    config,
    variables,
    parameters: templateVersionParameters(config),
  });
  return template;
}

/** A workspace of the template, started once on its active version; its home PVC holds `home of <owner>`. */
export async function seedWorkspace(d: SimDeployment, template: TemplateRecord, owner: User, name: string, createdAt: string, parameters: readonly BuildParameterValue[] = []): Promise<WorkspaceRecord> {
  const ws: WorkspaceRecord = {
    id: d.newId(),
    name,
    ownerId: owner.id,
    organizationId: d.org.id,
    templateId: template.id,
    createdAt,
    updatedAt: createdAt,
    lastUsedAt: createdAt,
    deleted: false,
    buildIds: [],
  };
  d.workspaces.set(ws.id, ws);
  try {
    await d.seedBuild(ws, template.activeVersionId, 'start', owner, homeDataOf(owner), parameters);
  } catch (err) {
    d.workspaces.delete(ws.id);
    // Coder's 400 for a parameter: the classic flow's detail, or the dynamic flow's validations, say which and why.
    if (err instanceof ApiError) {
      const why = err.validations?.length ? err.validations.map((v) => `${v.field}: ${v.detail}`).join('; ') : (err.detail ?? '').replace(/^parameter validation failed\n/, '');
      throw new Error(`${err.message}: ${why} (give it with --param NAME=VALUE)`);
    }
    throw err;
  }
  return ws;
}

export function homeDataOf(owner: User): string {
  return `home of ${owner.username}`;
}
