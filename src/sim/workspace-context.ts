import { createHash } from 'node:crypto';
import { evaluateValue, type Resolver } from './expression';
import type { TemplateConfig } from './template-config';
import { parameterText } from './template-parameters';
import type { StateResource } from './terraform-state';

export type Transition = 'start' | 'stop' | 'delete';

/** What data "coder_workspace" / "coder_workspace_owner" expose to a template during one build. */
export interface WorkspaceContext {
  workspaceId: string;
  workspaceName: string;
  ownerId: string;
  /** The owner's username (Coder's metadata WorkspaceOwner = owner.Username). */
  ownerUsername: string;
  /** The owner's full name as Coder stores it, '' when none (metadata WorkspaceOwnerName = owner.Name). */
  ownerFullName: string;
  ownerEmail: string;
  templateId: string;
  templateName: string;
  templateVersionName: string;
  accessUrl: string;
  transition: Transition;
  /** The build's parameter values by parameter name (wsbuilder: given, else the previous build's, else the default). */
  parameters: Readonly<Record<string, string>>;
}

export function startCountOf(transition: Transition): number {
  return transition === 'start' ? 1 : 0;
}

/**
 * What the coder provider makes of the owner Coder names. coderd/provisionerdserver/provisionerdserver.go
 * sends WorkspaceOwner = owner.Username and WorkspaceOwnerName = owner.Name (the full name, often
 * empty); provisioner/terraform/provision.go passes them as CODER_WORKSPACE_OWNER and
 * CODER_WORKSPACE_OWNER_NAME. coder/terraform-provider-coder reads them with "default" for an empty
 * value: provider/workspace.go (v0.x/v1, before "remove deprecated items", #255) sets `owner` from
 * CODER_WORKSPACE_OWNER and `owner_name` from CODER_WORKSPACE_OWNER_NAME (OptionalEnvOrDefault(...,
 * "default")); provider/workspace_owner.go sets `name` from CODER_WORKSPACE_OWNER and `full_name` from
 * CODER_WORKSPACE_OWNER_NAME, each "default" when empty. So owner_name/full_name are never the
 * username unless the user's full name happens to be it.
 */
function providerOwner(ctx: WorkspaceContext): { username: string; fullName: string } {
  return { username: ctx.ownerUsername || 'default', fullName: ctx.ownerFullName || 'default' };
}

export function coderWorkspaceAttributes(ctx: WorkspaceContext): Record<string, unknown> {
  const owner = providerOwner(ctx);
  return {
    access_port: Number(new URL(ctx.accessUrl).port || 80),
    access_url: ctx.accessUrl,
    id: ctx.workspaceId,
    is_prebuild: false,
    name: ctx.workspaceName,
    // The owner fields coder/coder provider releases before coder_workspace_owner kept here (deprecated, still read by many templates).
    owner: owner.username,
    owner_id: ctx.ownerId,
    owner_email: ctx.ownerEmail,
    owner_name: owner.fullName,
    prebuild_count: 0,
    start_count: startCountOf(ctx.transition),
    template_id: ctx.templateId,
    template_name: ctx.templateName,
    template_version: ctx.templateVersionName,
    transition: ctx.transition,
  };
}

/**
 * Real Coder puts the owner's git SSH key pair into coder_workspace_owner, so every state holds a
 * private key: the simulator does the same (derived from the owner id, so seeded runs repeat),
 * which lets secret scans look for a key that is really there.
 */
export function simulatedSshPrivateKey(ownerId: string): string {
  const body = createHash('sha512').update(`sim-ssh-key:${ownerId}`).digest('base64');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

export function coderWorkspaceOwnerAttributes(ctx: WorkspaceContext): Record<string, unknown> {
  const owner = providerOwner(ctx);
  return {
    email: ctx.ownerEmail,
    full_name: owner.fullName,
    groups: [],
    id: ctx.ownerId,
    login_type: 'password',
    name: owner.username,
    oidc_access_token: '',
    rbac_roles: [],
    ssh_private_key: simulatedSshPrivateKey(ctx.ownerId),
    ssh_public_key: `ssh-ed25519 ${createHash('sha256').update(`sim-ssh-pub:${ctx.ownerId}`).digest('base64')} ${owner.username}`,
  };
}

/**
 * data "coder_parameter": the value is the build's (Coder passes it as CODER_PARAMETER_<sha256 of the
 * name>, coder provider parameter.go), else the default. The provider hands every value over as a string.
 */
function coderParameterAttributes(body: Record<string, unknown>, resolve: Resolver, values: Readonly<Record<string, string>>): Record<string, unknown> {
  const defaultValue = parameterText(evaluateValue(body.default, resolve));
  const name = parameterText(evaluateValue(body.name, resolve));
  const value = Object.hasOwn(values, name) ? (values[name] as string) : defaultValue;
  return { ...body, value, default: defaultValue };
}

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const step of path) {
    if (Array.isArray(current) && /^\d+$/.test(step)) current = current[Number(step)];
    else if (current !== null && typeof current === 'object' && !Array.isArray(current)) current = (current as Record<string, unknown>)[step];
    else return undefined;
  }
  return current;
}

/**
 * Resolves references the way a plan sees them: data sources from the workspace, variables from
 * their defaults, locals, and other resources from the state being built (so a Deployment can
 * read its PVC's name).
 */
export function buildResolver(ctx: WorkspaceContext, config: TemplateConfig, resources: () => readonly StateResource[]): Resolver {
  const resolve: Resolver = (path) => {
    const [root, second, third, ...rest] = path;
    if (root === 'data' && second === 'coder_workspace' && third !== undefined) return walk(coderWorkspaceAttributes(ctx), rest);
    if (root === 'data' && second === 'coder_workspace_owner' && third !== undefined) return walk(coderWorkspaceOwnerAttributes(ctx), rest);
    if (root === 'var' && second !== undefined) return walk(config.variables[second], path.slice(2));
    if (root === 'data' && second === 'coder_parameter' && third !== undefined) {
      const block = config.dataSources.find((d) => d.type === 'coder_parameter' && d.name === third);
      return block ? walk(coderParameterAttributes(block.body ?? {}, resolve, ctx.parameters), rest) : undefined;
    }
    if (root === 'local' && second !== undefined) {
      return second in config.locals ? walk(evaluateValue(config.locals[second], resolve), path.slice(2)) : undefined;
    }
    if (root === undefined || second === undefined || root === 'data') return undefined;
    const resource = resources().find((r) => r.mode === 'managed' && r.type === root && r.name === second);
    if (!resource) return undefined;
    const keyed = third !== undefined && /^\d+$/.test(third) && resource.instances.some((i) => i.index_key !== undefined);
    const instance = keyed ? resource.instances.find((i) => i.index_key === Number(third)) : resource.instances.find((i) => i.index_key === undefined);
    if (!instance) return undefined;
    return walk(instance.attributes, keyed ? rest : path.slice(2));
  };
  return resolve;
}
