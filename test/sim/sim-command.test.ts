import { Command, CommanderError } from 'commander';
import { registerSimCommands } from '../../src/cli/commands/sim';
import type { CliIo } from '../../src/cli/io';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeRealStack } from '../harness/real-stack';

function collector(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (t) => lines.push(t), err: (t) => errors.push(t) };
}

function program(io: CliIo): Command {
  const p = new Command();
  p.exitOverride();
  p.configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  registerSimCommands(p, io);
  return p;
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('wsmigrate sim', () => {
  test('starts on a free port, prints the URL, the admin token and an export line, serves the API, and stops on SIGTERM', async () => {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '4', '--seed', '3', '--version', '2.29.2', '--build-latency-ms', '5'], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    const exportLine = io.lines.find((l) => l.startsWith('export ')) as string;
    const m = /^export CODER_URL=(http:\/\/127\.0\.0\.1:\d+) CODER_SESSION_TOKEN=(\S+)$/.exec(exportLine);
    expect(m).not.toBeNull();
    const [, url, token] = m as RegExpExecArray;
    expect(io.lines.join('\n')).toContain(`listening on ${url}`);
    expect(io.lines.join('\n')).toContain(`admin token:  ${token}`);

    const info = (await (await fetch(`${url}/api/v2/buildinfo`)).json()) as { version: string };
    expect(info.version).toBe('v2.29.2');
    const list = (await (await fetch(`${url}/api/v2/workspaces`, { headers: { 'Coder-Session-Token': token as string } })).json()) as { count: number };
    expect(list.count).toBe(4);

    process.emit('SIGTERM');
    await run;
    expect(io.lines[io.lines.length - 1]).toBe('Coder simulator stopped (SIGTERM).');
    await expect(fetch(`${url}/api/v2/buildinfo`)).rejects.toThrow();
  });

  /** Starts `wsmigrate sim` with these flags, PATCHes require_active_version on as the admin, and reads it back. */
  async function requireActiveVersionUnder(flags: string[]): Promise<{ patchStatus: number; readBack: boolean; lines: string[]; owners: Record<string, string>; url: string }> {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '2', '--seed', '4', ...flags], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    try {
      const [, url, token] = /^export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)$/.exec(io.lines.find((l) => l.startsWith('export ')) as string) as RegExpExecArray;
      const owners = Object.fromEntries(((/owner tokens: (.*)$/m.exec(io.lines.join('\n')) as RegExpExecArray)[1]).split(' ').map((kv) => kv.split('=')));
      const headers = { 'Coder-Session-Token': token as string, 'Content-Type': 'application/json' };
      const template = (await (await fetch(`${url}/api/v2/organizations/coder/templates/k8s-dev`, { headers })).json()) as Record<string, unknown>;
      const patch = await fetch(`${url}/api/v2/templates/${String(template.id)}`, { method: 'PATCH', headers, body: JSON.stringify({ ...template, require_active_version: true }) });
      const readBack = ((await (await fetch(`${url}/api/v2/templates/${String(template.id)}`, { headers })).json()) as { require_active_version: boolean }).require_active_version;
      return { patchStatus: patch.status, readBack, lines: [...io.lines], owners, url: url as string };
    } finally {
      process.emit('SIGTERM');
      await run;
    }
  }

  test("by default it acts as an unlicensed (AGPL) Coder: require_active_version is accepted (200), ignored and reads back false; each owner's token is printed", async () => {
    const r = await requireActiveVersionUnder([]);
    expect(r.lines.join('\n')).toContain('licence: agpl');
    expect(r.patchStatus).toBe(200);
    expect(r.readBack).toBe(false);
    expect(Object.keys(r.owners).sort()).toEqual(['alice', 'bob']);
    // A Template Admin's token reads every workspace but may not stop one (coderd/rbac/roles.go).
    const roles = Object.fromEntries(((/role tokens: +(.*)$/m.exec(r.lines.join('\n')) as RegExpExecArray)[1]).split(' ').map((kv) => kv.split('=')));
    expect(Object.keys(roles)).toEqual(['template-admin', 'organization-admin']);
  });

  test('--licence premium holds the setting; --licence expired ignores it like AGPL', async () => {
    const premium = await requireActiveVersionUnder(['--licence', 'premium']);
    expect(premium).toMatchObject({ patchStatus: 200, readBack: true });
    const expired = await requireActiveVersionUnder(['--licence', 'expired']);
    expect(expired).toMatchObject({ patchStatus: 200, readBack: false });
    expect(expired.lines.join('\n')).toContain('licence: expired');
  });

  test('--lifecycle-interval runs the executor on its own; a bad duration is a usage error', async () => {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--lifecycle-interval', '500ms'], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    process.emit('SIGTERM');
    await run;
    expect(io.lines.join('\n')).toContain('lifecycle:    autostart/autostop every 500 ms');
    const bad = collector();
    await expect(program(bad).parseAsync(['sim', '--lifecycle-interval', 'often'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(bad.errors.join('')).toContain('--lifecycle-interval must be a duration between 10ms and 60m');
  });

  test("--prebuilds seeds prebuilt workspaces owned by 'prebuilds' and needs --licence premium", async () => {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--licence', 'premium', '--prebuilds', '2', '--prebuild-interval', '30s'], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    try {
      const [, url, token] = /^export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)$/.exec(io.lines.find((l) => l.startsWith('export ')) as string) as RegExpExecArray;
      const res = await fetch(`${url}/api/v2/workspaces`, { headers: { 'Coder-Session-Token': token as string } });
      const { workspaces } = (await res.json()) as { workspaces: { owner_name: string; is_prebuild: boolean }[] };
      expect(workspaces.filter((w) => w.is_prebuild).map((w) => w.owner_name)).toEqual(['prebuilds', 'prebuilds']);
    } finally {
      process.emit('SIGTERM');
      await run;
    }
    const text = io.lines.join('\n');
    expect(text).toContain("prebuilds:    2 per version's preset (owner 'prebuilds'), reconciled every 30000 ms");
    expect(text).not.toMatch(/owner tokens:.*prebuilds=/);
    const agpl = collector();
    await expect(program(agpl).parseAsync(['sim', '--port', '0', '--prebuilds', '2'], { from: 'user' })).rejects.toThrow(/--prebuilds needs --licence premium/);
  });

  /** Starts `wsmigrate sim` with these flags and answers what the daemons API lists, as an Owner. */
  async function daemonsUnder(flags: string[]): Promise<{ status: number; names: string[]; lines: string[] }> {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--seed', '5', ...flags], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    try {
      const [, url, token] = /^export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)$/.exec(io.lines.find((l) => l.startsWith('export ')) as string) as RegExpExecArray;
      const res = await fetch(`${url}/api/v2/organizations/coder/provisionerdaemons`, { headers: { 'Coder-Session-Token': token as string } });
      const body = res.status === 200 ? ((await res.json()) as { name: string }[]) : [];
      return { status: res.status, names: body.map((d) => d.name), lines: [...io.lines] };
    } finally {
      process.emit('SIGTERM');
      await run;
    }
  }

  test("by default it runs Coder's three built-in provisioner daemons and lists them; --provisioners unlimited has none to list (404, as an old Coder)", async () => {
    const byDefault = await daemonsUnder([]);
    expect(byDefault.status).toBe(200);
    expect(byDefault.names).toHaveLength(3);
    expect(byDefault.lines.join('\n')).toContain(`daemons:      ${byDefault.names.join(', ')}`);
    const five = await daemonsUnder(['--provisioners', '5']);
    expect(five.names).toHaveLength(5);
    const unlimited = await daemonsUnder(['--provisioners', 'unlimited']);
    expect(unlimited.status).toBe(404);
    expect(unlimited.lines.join('\n')).toContain('daemons:      unlimited');
    const io = collector();
    await expect(program(io).parseAsync(['sim', '--provisioners', 'lots'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(io.errors.join('')).toContain('--provisioners must be a whole number or "unlimited", got "lots"');
  });

  test('--template-dir seeds your own template; a required variable needs --var, as Coder refuses the import without it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tpl-'));
    try {
      const source = readFileSync(join(__dirname, '..', 'fixtures', 'sim', 'template-v1', 'main.tf'), 'utf8')
        .replace('kubernetes_persistent_volume_claim_v1', 'kubernetes_persistent_volume_claim')
        .concat('\nvariable "cluster_name" {\n  type = string\n}\n');
      writeFileSync(join(dir, 'main.tf'), source);
      const missing = collector();
      await expect(program(missing).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--template-dir', dir], { from: 'user' })).rejects.toThrow(
        /The template in .* could not be seeded: required template variables need values: cluster_name \(give each with --var NAME=VALUE\)/,
      );
      const io = collector();
      const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '2', '--seed', '6', '--template-dir', dir, '--var', 'cluster_name=east', '--var', 'namespace=team-a'], { from: 'user' });
      await until(() => io.lines.some((l) => l.startsWith('export ')));
      try {
        const [, url, token] = /^export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)$/.exec(io.lines.find((l) => l.startsWith('export ')) as string) as RegExpExecArray;
        const headers = { 'Coder-Session-Token': token as string };
        const list = (await (await fetch(`${url}/api/v2/workspaces`, { headers })).json()) as { workspaces: { id: string; latest_build: { template_version_id: string } }[] };
        expect(list.workspaces).toHaveLength(2);
        const variables = (await (await fetch(`${url}/api/v2/templateversions/${list.workspaces[0]!.latest_build.template_version_id}/variables`, { headers })).json()) as { name: string; value: string }[];
        expect(variables).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cluster_name', value: 'east' }), expect.objectContaining({ name: 'namespace', value: 'team-a' })]));
      } finally {
        process.emit('SIGTERM');
        await run;
      }
      await expect(program(collector()).parseAsync(['sim', '--template-dir', join(dir, 'nope')], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--param creates the seeded workspaces with a coder_parameter's value; a required one without it says which and how", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tpl-'));
    try {
      const source = readFileSync(join(__dirname, '..', 'fixtures', 'sim', 'template-v1', 'main.tf'), 'utf8')
        .replace('kubernetes_persistent_volume_claim_v1', 'kubernetes_persistent_volume_claim')
        .replace('storage = "10Gi"', 'storage = "${data.coder_parameter.size.value}Gi"')
        .concat('\ndata "coder_parameter" "size" {\n  name = "home_disk_size"\n  type = "number"\n}\n');
      expect(source).toContain('data.coder_parameter.size.value');
      writeFileSync(join(dir, 'main.tf'), source);
      await expect(program(collector()).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--template-dir', dir], { from: 'user' })).rejects.toThrow(
        // The seeded template is on Coder's default, the dynamic parameter flow (wsbuilder.go getDynamicParameters).
        'could not be seeded: Unable to validate parameters: home_disk_size: Required parameter not provided; parameter value is required (give it with --param NAME=VALUE)',
      );
      const io = collector();
      const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--seed', '6', '--template-dir', dir, '--param', 'home_disk_size=25'], { from: 'user' });
      await until(() => io.lines.some((l) => l.startsWith('export ')));
      try {
        const [, url, token] = /^export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)$/.exec(io.lines.find((l) => l.startsWith('export ')) as string) as RegExpExecArray;
        const headers = { 'Coder-Session-Token': token as string };
        const list = (await (await fetch(`${url}/api/v2/workspaces`, { headers })).json()) as { workspaces: { latest_build: { id: string } }[] };
        const buildId = list.workspaces[0]!.latest_build.id;
        expect(await (await fetch(`${url}/api/v2/workspacebuilds/${buildId}/parameters`, { headers })).json()).toEqual([{ name: 'home_disk_size', value: '25' }]);
        expect(await (await fetch(`${url}/api/v2/workspacebuilds/${buildId}/state`, { headers })).text()).toMatch(/"storage": ?"25Gi"/);
      } finally {
        process.emit('SIGTERM');
        await run;
      }
      const bad = collector();
      await expect(program(bad).parseAsync(['sim', '--param', 'home_disk_size'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
      expect(bad.errors.join('')).toContain(`--param must be NAME=VALUE (as 'coder create --parameter'), got "home_disk_size"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an unknown --licence is a usage error naming the choices', async () => {
    const io = collector();
    await expect(program(io).parseAsync(['sim', '--licence', 'gold'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(io.errors.join('')).toContain('--licence must be one of premium, agpl, expired');
  });

  test('rejects a bad flag value with a usage error naming the flag', async () => {
    const io = collector();
    await expect(program(io).parseAsync(['sim', '--workspaces', 'many'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(io.errors.join('')).toContain('--workspaces must be a whole number, got "many"');
  });

  test('--help teaches what it does, an example and the exit codes', async () => {
    const io = collector();
    await expect(program(io).parseAsync(['sim', '--help'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.helpDisplayed' });
    const help = io.lines.join('');
    expect(help).toContain('Starts a local, in-memory Coder deployment');
    expect(help).toContain('$ wsmigrate sim --workspaces 200');
    expect(help).toMatch(/Exit codes:[\s\S]*0\s+stopped by SIGINT\/SIGTERM[\s\S]*2\s+a flag has an invalid value/);
    // Defaults in the words a flag takes: '1m', never the 60000 ms it parses to.
    expect(help.replace(/\s+/g, ' ')).toContain('/api/v2/sim/prebuilds/reconcile (default: 1m)');
    expect(help).not.toContain('60000');
  });

  test('a taken port fails with exit code 1 and says what to do', async () => {
    const io = collector();
    const first = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '0'], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')));
    const port = /:(\d+) /.exec(io.lines.find((l) => l.startsWith('export ')) as string)?.[1] as string;
    const second = collector();
    await expect(program(second).parseAsync(['sim', '--port', port, '--workspaces', '0'], { from: 'user' })).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('Pick another --port'),
    });
    process.emit('SIGINT');
    await first;
  });
});


describeRealStack('wsmigrate sim --provisioner terraform', () => {
  test('starts its own API server, builds the seeded workspace with real Terraform, and removes everything on SIGTERM', async () => {
    const io = collector();
    const run = program(io).parseAsync(['sim', '--port', '0', '--workspaces', '1', '--provisioner', 'terraform'], { from: 'user' });
    await until(() => io.lines.some((l) => l.startsWith('export ')), 300_000);
    const line = io.lines.find((l) => l.includes('provisioner:')) ?? '';
    const kubeconfig = /against the API server in (\S+)$/.exec(line)?.[1] ?? '';
    expect(existsSync(kubeconfig)).toBe(true);
    process.emit('SIGTERM');
    await run;
    expect(existsSync(dirname(kubeconfig))).toBe(false);
  }, 600_000);

  test('--kubeconfig without --provisioner terraform is refused', async () => {
    const io = collector();
    await expect(program(io).parseAsync(['sim', '--port', '0', '--kubeconfig', '/tmp/x'], { from: 'user' })).rejects.toThrow(/only used by the terraform provisioner/);
  });
});
