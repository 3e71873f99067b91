import { SimDeployment } from './deployment';
import type { TemplateRecord, User } from './model';
import type { SimProvisioner } from './provisioner';
import type { SimRandom } from './random';
import { homeDataOf, seedTemplate, seedWorkspace } from './seed-template';
import { K8S_TEMPLATE_MAIN_TF } from './template-source';
import { sessionToken } from './session-token';

export interface SeedOptions {
  workspaces: number;
  templateName: string;
  workspacesRunning: boolean;
  buildLatencyMs: number;
  /** Runs the seeded builds and every later one; default the structural provisioner. */
  provisioner?: SimProvisioner;
  templateFiles?: { name: string; content: string }[];
  templateVariables?: { name: string; value: string }[];
  workspaceParameters?: { name: string; value: string }[];
  useClassicParameterFlow?: boolean;
}

export interface SeededDeployment {
  deployment: SimDeployment;
  admin: User;
  member: User;
  template: TemplateRecord;
  originalVersionId: string;
}

/**
 * Members' usernames and full names. Coder keeps the two apart (users.username, users.name) and gives
 * a template the full name as coder_workspace.owner_name and coder_workspace_owner.full_name: the
 * seeded full names differ from the usernames so a template, or wsmigrate, that takes one for the
 * other is caught.
 */
const MEMBERS: readonly (readonly [username: string, fullName: string])[] = [
  ['alice', 'Alice Liddell'],
  ['bob', 'Bob Cratchit'],
  ['carol', 'Carol Danvers'],
  ['dave', 'Dave Bowman'],
];
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
  const user = (username: string, fullName: string, owner: boolean): User => ({
    id: random.uuid(),
    username,
    name: fullName,
    email: `${username}@example.com`,
    roles: owner ? ['owner'] : [],
    token: sessionToken(random),
    createdAt: created,
  });
  const admin = user('admin', 'Ada Admin', true);
  const members = MEMBERS.map(([name, fullName]) => user(name, fullName, false));
  d.users.push(admin, ...members);

  const template = await seedTemplate(d, admin, { name: opts.templateName, displayName: 'Kubernetes (Deployment)', files: opts.templateFiles ?? [{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }], createdAt: created, variables: opts.templateVariables ?? [], ...(opts.useClassicParameterFlow !== undefined ? { useClassicParameterFlow: opts.useClassicParameterFlow } : {}) });
  const versionId = template.activeVersionId;
  for (let i = 0; i < opts.workspaces; i++) {
    const owner = members[i % members.length] as User;
    const ws = await seedWorkspace(d, template, owner, `${WORKSPACE_STEMS[i % WORKSPACE_STEMS.length]}-${i + 1}`, created, opts.workspaceParameters ?? []);
    if (!opts.workspacesRunning) await d.seedBuild(ws, versionId, 'stop', owner, homeDataOf(owner));
  }
  return { deployment: d, admin, member: members[0] as User, template, originalVersionId: versionId };
}
