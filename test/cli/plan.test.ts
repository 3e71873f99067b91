import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CliRun } from '../harness/cli';
import { registerPlanCommands } from '../../src/cli/commands/plan';
import { EXIT } from '../../src/cli/io';

const fixtures = join(__dirname, '..', 'fixtures', 'plan');
const fixture = (relative: string) => join(fixtures, relative);

const run = (...args: string[]): Promise<CliRun> => runCommand(registerPlanCommands, ...args);

describe('wsmigrate plan check', () => {
  it('denies an unmigrated state planned with the migrated template (exit 3), naming the PVC', async () => {
    const r = await run('plan', 'check', fixture('show/rename-old-to-new.json'));
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.out).toContain('type-rename kubernetes_persistent_volume_claim.home -> kubernetes_persistent_volume_claim_v1.home');
    expect(r.out).toMatch(/DENY\s+protected kubernetes_persistent_volume_claim\.home would be destroyed/);
    expect(r.err).toMatch(/^DENY: this start would destroy 1 protected resource/);
  });

  it('allows the removed guard (exit 0) and does not list no-ops', async () => {
    const r = await run('plan', 'check', fixture('show/forget-guard.json'));
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('forget      kubernetes_persistent_volume_claim.home');
    expect(r.out).not.toContain('coder_agent.main');
    expect(r.out).toContain('ALLOW: this start destroys no protected resource');
  });

  it('asks for approval on an unprotected replacement (exit 4)', async () => {
    const r = await run('plan', 'check', fixture('show/replace-deployment-cbd.json'));
    expect(r.exitCode).toBe(EXIT.changesPending);
    expect(r.out).toContain('replace     kubernetes_deployment_v1.main[0]  [replace_because_cannot_update]');
  });

  it('--transition delete lets a workspace delete destroy the PVC', async () => {
    const plan = fixture('show/removed-delete.json');
    expect((await run('plan', 'check', plan, '--protect', 'kubernetes_config_map.gone')).exitCode).toBe(EXIT.denied);
    expect((await run('plan', 'check', plan, '--protect', 'kubernetes_config_map_v1.gone', '--transition', 'delete')).exitCode).toBe(EXIT.ok);
  });

  it('reads streamed plan -json lines', async () => {
    const r = await run('plan', 'check', fixture('stream/rename-mixed.plan.jsonl'), '--transition', 'stop');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.out).toContain('module.ws[0].kubernetes_deployment.main[0] -> module.ws[0].kubernetes_deployment_v1.main[0]');
  });

  it('--json prints the changes and the verdict, and never plan values', async () => {
    const r = await run('plan', 'check', fixture('show/rename-old-to-new.json'), '--json');
    const parsed = JSON.parse(r.out) as { verdict: { verdict: string }; changes: { kind: string }[]; transition: string };
    expect(parsed.verdict.verdict).toBe('deny');
    expect(parsed.transition).toBe('start');
    expect(parsed.changes.map((c) => c.kind)).toEqual(['update', 'type-rename', 'type-rename']);
    expect(r.out + r.err).not.toContain('s3cr3t-sentinel-token');
  });

  describe('--template', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'wsmigrate-plan-cli-'));
      writeFileSync(
        join(dir, 'main.tf'),
        '# wsmigrate:protect\nresource "kubernetes_config_map" "gone" {\n}\n\nresource "kubernetes_secret_v1" "b" {\n}\n',
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('protects the namespace a claim lives in: a real plan that destroys it is denied, naming it', async () => {
      const plan = fixture('real/namespace-guarded-claim-only.show.json');
      const template = join(__dirname, '..', 'fixtures', 'sim', 'template-namespace-per-workspace');
      const r = await run('plan', 'check', plan, '--template', template);
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.out).toMatch(/DENY\s+protected kubernetes_namespace\.ws would be destroyed/);
      expect(r.err).toContain('would destroy 1 protected resource(s): kubernetes_namespace.ws');
    });

    it('protects resources annotated "# wsmigrate:protect"', async () => {
      const plan = fixture('show/removed-delete.json');
      expect((await run('plan', 'check', plan)).exitCode).toBe(EXIT.ok);
      const r = await run('plan', 'check', plan, '--template', dir);
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toContain('kubernetes_config_map.gone');
    });
  });

  it.each([
    ['bad/not-json.txt', 'not JSON'],
    ['bad/state-not-plan.json', 'this is a Terraform state, not a plan'],
    ['bad/format-version-2.json', 'is not 1.x'],
    ['show/does-not-exist.json', 'cannot read the plan: no such file or directory'],
    ['show', 'cannot read the plan: it is a directory'],
  ])('refuses %s with exit 1 and a message naming the file', async (relative, message) => {
    const r = await run('plan', 'check', fixture(relative));
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.err).toContain(fixture(relative));
    expect(r.err).toContain(message);
  });

  it('refuses a --protect that is not an address, and an unknown transition', async () => {
    const bad = await run('plan', 'check', fixture('show/empty.json'), '--protect', 'home');
    expect(bad.exitCode).not.toBe(EXIT.ok);
    expect(bad.err).toContain('"home" is not a resource address');
    const transition = await run('plan', 'check', fixture('show/empty.json'), '--transition', 'restart');
    expect(transition.exitCode).not.toBe(EXIT.ok);
    expect(transition.err).toContain('restart');
  });

  it('--help teaches the rules, an example and the exit codes', async () => {
    const r = await run('plan', 'check', '--help');
    expect(r.out).toContain('type-rename');
    expect(r.out).toContain('Example:');
    expect(r.out).toMatch(/3 {2}deny/);
    expect(r.out).toMatch(/4 {2}needs approval/);
  });
});

describe('wsmigrate plan structural', () => {
  const structural = (template: string, state: string, ...more: string[]) =>
    run('plan', 'structural', '--template', fixture(`templates/${template}`), '--state', fixture(`states/${state}.tfstate`), ...more);

  it('denies the unguarded migrated template against an unmigrated state', async () => {
    const r = await structural('k8s-new-unguarded', 'old-stopped');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.out).toContain('type-rename kubernetes_persistent_volume_claim.home -> kubernetes_persistent_volume_claim_v1.home');
  });

  it('allows it once the removed guard is in the template', async () => {
    const r = await structural('k8s-new', 'old-stopped');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('forget      kubernetes_persistent_volume_claim.home');
    expect(r.out).toContain('create      kubernetes_persistent_volume_claim_v1.home');
  });

  it('denies the old template stopping a migrated workspace', async () => {
    const r = await structural('k8s-old', 'migrated-running', '--transition', 'stop');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.out).toContain('pin template_version_id');
  });

  it('never prints state values', async () => {
    const r = await structural('k8s-new', 'old-running', '--json');
    expect(r.exitCode).toBe(EXIT.changesPending);
    expect(r.out).not.toContain('REDACTED-FIXTURE');
    expect(JSON.parse(r.out).verdict.verdict).toBe('needs-approval');
  });

  describe('bad input', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'wsmigrate-plan-cli-'));
      mkdirSync(join(dir, 'broken'));
      writeFileSync(join(dir, 'broken', 'main.tf'), 'resource "kubernetes_secret" "s" {\n');
      mkdirSync(join(dir, 'empty'));
      writeFileSync(join(dir, 'state.json'), '{"version": 4, "token": "hunter2-sentinel"');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('names the template file that does not parse', async () => {
      const r = await run('plan', 'structural', '--template', join(dir, 'broken'), '--state', fixture('states/old-stopped.tfstate'));
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toContain(join(dir, 'broken', 'main.tf'));
    });

    it('refuses a directory without Terraform files', async () => {
      const r = await run('plan', 'structural', '--template', join(dir, 'empty'), '--state', fixture('states/old-stopped.tfstate'));
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toContain('no .tf or .tf.json files');
    });

    it('refuses a state that is not JSON without quoting it', async () => {
      const r = await run('plan', 'structural', '--template', fixture('templates/k8s-old'), '--state', join(dir, 'state.json'));
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toContain(`${join(dir, 'state.json')}: not JSON`);
      expect(r.err).not.toContain('hunter2-sentinel');
    });

    it('refuses a plan file given as the state', async () => {
      const r = await run('plan', 'structural', '--template', fixture('templates/k8s-old'), '--state', fixture('show/forget-guard.json'));
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toContain('not a Terraform v4 state');
    });
  });
});
