import { SimDeployment } from './deployment';
import type { TemplateRecord, User, WorkspaceRecord } from './model';
import type { SimProvisioner } from './provisioner';
import type { SimRandom } from './random';
import { packTar } from './tar-archive';
import { parseTemplateConfig } from './template-config';
import { seededTemplateMeta } from './template-meta';
import { K8S_TEMPLATE_MAIN_TF } from './template-source';
import { sessionToken } from './session-token';

export interface SeedOptions {
  workspaces: number;
  templateName: string;
  workspacesRunning: boolean;
  buildLatencyMs: number;
  /** Runs the seeded builds and every later one; default the structural provisioner. */
  provisioner?: SimProvisioner;
}

export interface SeededDeployment {
  deployment: SimDeployment;
  admin: User;
  member: User;
  template: TemplateRecord;
  originalVersionId: string;
}

const MEMBER_NAMES = ['alice', 'bob', 'carol', 'dave'];
const WORKSPACE_STEMS = ['dev', 'api', 'frontend', 'data', 'ml'];


/**
 * A deployment as the runbook finds it: one organization `coder`, an owner and a few members, the
 * Kubernetes template on its first version (deprecated types), and N workspaces whose home PVCs
 * carry their owner's data.
 */
export async function seedDeployment(random: SimRandom, opts: SeedOptions): Promise<SeededDeployment> {
  const created = new Date().toISOString();
  const org = { id: random.uuid(), name: 'coder', displayName: 'Coder', createdAt: created };
  const d = new SimDeployment(org, random, opts.buildLatencyMs);
  if (opts.provisioner) d.provisioner = opts.provisioner;
  const user = (username: string, owner: boolean): User => ({
    id: random.uuid(),
    username,
    email: `${username}@example.com`,
    roles: owner ? ['owner'] : [],
    token: sessionToken(random),
    createdAt: created,
  });
  const admin = user('admin', true);
  const members = MEMBER_NAMES.map((name) => user(name, false));
  d.users.push(admin, ...members);

  const archive = await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
  const { file } = d.uploadFile(admin, archive, 'application/x-tar');
  const templateId = random.uuid();
  const versionId = random.uuid();
  const template: TemplateRecord = {
    id: templateId,
    name: opts.templateName,
    meta: seededTemplateMeta('Kubernetes (Deployment)'),
    organizationId: org.id,
    activeVersionId: versionId,
    createdById: admin.id,
    createdAt: created,
    updatedAt: created,
  };
  d.templates.set(template.id, template);
  d.versions.set(versionId, {
    id: versionId,
    templateId,
    organizationId: org.id,
    name: d.randomVersionName(),
    message: 'Uploaded from the CLI',
    job: {
      id: random.uuid(),
      type: 'template_version_import',
      status: 'succeeded',
      fileId: file.id,
      createdAt: created,
      startedAt: created,
      completedAt: created,
      initiatorId: admin.id,
      workerId: org.id,
      logs: [],
    },
    createdById: admin.id,
    createdAt: created,
    updatedAt: created,
    archived: false,
    config: await parseTemplateConfig([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]),
  });

  for (let i = 0; i < opts.workspaces; i++) {
    const owner = members[i % members.length] as User;
    const ws: WorkspaceRecord = {
      id: random.uuid(),
      name: `${WORKSPACE_STEMS[i % WORKSPACE_STEMS.length]}-${i + 1}`,
      ownerId: owner.id,
      organizationId: org.id,
      templateId,
      createdAt: created,
      updatedAt: created,
      lastUsedAt: created,
      deleted: false,
      buildIds: [],
    };
    d.workspaces.set(ws.id, ws);
    const homeData = `home of ${owner.username}`;
    await d.seedBuild(ws, versionId, 'start', owner, homeData);
    if (!opts.workspacesRunning) await d.seedBuild(ws, versionId, 'stop', owner, homeData);
  }
  return { deployment: d, admin, member: members[0] as User, template, originalVersionId: versionId };
}
