import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion, waitForBuild } from './helpers';

const CLAIM_NAME = 'name      = "coder-${data.coder_workspace.me.id}-home"';
const named = (expr: string) => {
  if (!K8S_TEMPLATE_MAIN_TF.includes(CLAIM_NAME)) throw new Error('the seeded template no longer names its claim as this test expects');
  return K8S_TEMPLATE_MAIN_TF.replace(CLAIM_NAME, `name      = ${expr}`);
};

interface StateJson {
  resources: { mode: string; type: string; instances: { attributes: Record<string, unknown> }[] }[];
}

/**
 * The owner a template sees is Coder's, not the API's: coderd/provisionerdserver/provisionerdserver.go
 * sends WorkspaceOwner = owner.Username and WorkspaceOwnerName = owner.Name (the full name);
 * provisioner/terraform/provision.go passes them as CODER_WORKSPACE_OWNER and CODER_WORKSPACE_OWNER_NAME;
 * the provider (provider/workspace.go, provider/workspace_owner.go) reads `owner`/`name` from the first
 * and `owner_name`/`full_name` from the second, "default" when it is empty. The REST API's
 * workspace `owner_name` is the username (coderd/workspaces.go convertWorkspace). A simulator that gave
 * the template the username for owner_name/full_name would hide templates, and wsmigrate code, that
 * take one for the other.
 */
describe('simulator: the owner names a template sees', () => {
  let sim: CoderSimulator | undefined;
  afterEach(async () => sim?.close());

  const start = async (claimName: string) => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5, seed: 83, templateFiles: [{ name: 'main.tf', content: named(claimName) }] });
    return sim;
  };
  const claims = (s: CoderSimulator) => s.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.name).sort();

  test('a claim named with data.coder_workspace.me.owner_name carries the owner\'s full name, never the username', async () => {
    const s = await start('"${replace(lower(data.coder_workspace.me.owner_name), " ", "-")}-home"');
    expect(s.workspaces().map((w) => w.owner)).toEqual(['alice', 'bob']);
    expect(claims(s)).toEqual(['alice-liddell-home', 'bob-cratchit-home']);
  });

  test('a claim named with data.coder_workspace_owner.me.full_name carries the full name', async () => {
    const s = await start('"${lower(replace(data.coder_workspace_owner.me.full_name, " ", "."))}"');
    expect(claims(s)).toEqual(['alice.liddell', 'bob.cratchit']);
  });

  // The provider checks every metadata.name as Kubernetes does (kubernetes/validators.go validateName:
  // a DNS-1123 subdomain) while Terraform plans: a full name as it is ("Alice Liddell") fails the build.
  test('a claim named with the full name as it is ("Alice Liddell") fails the build at plan with Kubernetes\' reason: nothing created, the state as it was', async () => {
    const s = await start('"coder-${data.coder_workspace.me.id}-home"');
    const ws = s.workspaces()[0]!;
    const before = { state: s.stateOf(ws.id), objects: s.cluster.objects() };
    const version = await pushTemplateVersion(s, named('data.coder_workspace_owner.me.full_name'), { name: 'raw-full-name' });
    expect(version.job.status).toBe('succeeded');
    const res = await api<{ id: string }>(s, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: version.id } });
    expect(res.status).toBe(201);
    const done = (await waitForBuild(s, res.body.id)).build;
    expect(done.job.status).toBe('failed');
    expect(done.job.error).toMatch(/^metadata\.0\.name a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character .*name "Alice Liddell"/);
    expect(s.stateOf(ws.id)).toBe(before.state);
    expect(s.cluster.objects()).toEqual(before.objects);
  });

  test('the state holds owner/name = username and owner_name/full_name = full name; the REST API keeps the username as owner_name', async () => {
    const s = await start('"coder-${data.coder_workspace.me.id}-home"');
    const ws = s.workspaces()[0]!;
    const state = JSON.parse(s.stateOf(ws.id)) as StateJson;
    const data = (type: string) => state.resources.find((r) => r.mode === 'data' && r.type === type)?.instances[0]?.attributes;
    expect(data('coder_workspace')).toMatchObject({ owner: 'alice', owner_name: 'Alice Liddell' });
    expect(data('coder_workspace_owner')).toMatchObject({ name: 'alice', full_name: 'Alice Liddell' });

    expect((await api(s, 'GET', `/workspaces/${ws.id}`)).body).toMatchObject({ owner_name: 'alice' });
    expect((await api(s, 'GET', '/users/alice')).body).toMatchObject({ username: 'alice', name: 'Alice Liddell' });
  });

  test('a user made without a full name: Coder stores "" and the provider reads "default"; with one, that one', async () => {
    const s = await start('"${replace(lower(data.coder_workspace.me.owner_name), " ", "-")}-home"');
    const minted = await api<{ username: string; name: string; token: string }>(s, 'POST', '/sim/tokens', { json: { role: 'member', username: 'nofull' } });
    expect(minted).toMatchObject({ status: 201, body: { username: 'nofull', name: '' } });
    expect((await api(s, 'GET', '/users/nofull')).body).toMatchObject({ username: 'nofull', name: '' });
    const named2 = await api<{ token: string }>(s, 'POST', '/sim/tokens', { json: { role: 'member', username: 'zed', name: 'Zed Zimmer' } });
    expect(named2.status).toBe(201);
    expect((await api(s, 'POST', '/sim/tokens', { json: { role: 'member', username: 'padded', name: ' Padded ' } })).status).toBe(400);

    for (const [user, token] of [['nofull', minted.body.token], ['zed', named2.body.token]] as const) {
      const res = await api<{ id: string; owner_name: string; latest_build: { id: string } }>(s, 'POST', '/users/me/workspaces', { json: { name: `ws-${user}`, template_id: s.template.id }, token });
      expect(res.status).toBe(201);
      expect(res.body.owner_name).toBe(user);
      expect((await waitForBuild(s, res.body.latest_build.id)).build.job.status).toBe('succeeded');
    }
    expect(claims(s)).toEqual(['alice-liddell-home', 'bob-cratchit-home', 'default-home', 'zed-zimmer-home']);
  });
});
