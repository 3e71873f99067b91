import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerStateCommands } from '../../src/cli/commands/state';
import { EXIT } from '../../src/cli/io';
import { runCommand } from '../harness/cli';

// Bad states fed to `wsmigrate state rewrite IN -o OUT`: each is refused with an error that names
// what is wrong and what to do, and OUT is never written. Odd-but-valid states come out exact.
const fixtures = join(__dirname, '..', 'fixtures', 'state');
const base = readFileSync(join(fixtures, 'count.tfstate'), 'utf8');
const baseJson = () => JSON.parse(base) as Record<string, unknown> & { resources: Record<string, unknown>[]; serial: number };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsmigrate-bad-state-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rewrite(name: string, text: string) {
  const input = join(dir, `${name}.tfstate`);
  const output = join(dir, `${name}.out.tfstate`);
  writeFileSync(input, text);
  const r = await runCommand(registerStateCommands, 'state', 'rewrite', input, '-o', output);
  return { ...r, input, output, written: existsSync(output), inputAfter: readFileSync(input, 'utf8') };
}

async function expectRefused(name: string, text: string, exitCode: number, ...messages: RegExp[]) {
  const r = await rewrite(name, text);
  expect(r.exitCode).toBe(exitCode);
  for (const m of messages) expect(r.err).toMatch(m);
  expect(r.err).toMatch(/Nothing was written/);
  expect(r.written).toBe(false);
  expect(r.inputAfter).toBe(text);
}

describe('bad input: states', () => {
  it('a file that is not JSON', async () => {
    await expectRefused('not-json', 'Error: unauthorized\n', EXIT.failure, /not valid JSON: line 1, column 1/);
  });

  it('a truncated state (download cut in half)', async () => {
    await expectRefused('truncated', base.slice(0, Math.floor(base.length / 2)), EXIT.failure, /not valid JSON: line \d+, column \d+/);
  });

  it('an empty file', async () => {
    await expectRefused('empty', '', EXIT.failure, /not valid JSON.*ends where a value was expected/);
  });

  it('a JSON array instead of a state object', async () => {
    await expectRefused('array', '[]', EXIT.failure, /not a JSON object.*"version": 4/);
  });

  it('a format version 3 state', async () => {
    await expectRefused('v3', JSON.stringify({ ...baseJson(), version: 3 }), EXIT.failure, /format version 3/, /Terraform 0\.12\+ run write this state once/);
  });

  it('a state with no lineage', async () => {
    const s = baseJson();
    delete s.lineage;
    await expectRefused('no-lineage', JSON.stringify(s), EXIT.failure, /lineage: missing/);
  });

  it('a state with an empty lineage', async () => {
    await expectRefused('empty-lineage', JSON.stringify({ ...baseJson(), lineage: '' }), EXIT.failure, /empty lineage/, /coder state pull/);
  });

  it('a state listing the same resource address twice', async () => {
    const s = baseJson();
    s.resources.push(s.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim') as Record<string, unknown>);
    await expectRefused('duplicate', JSON.stringify(s), EXIT.failure, /lists kubernetes_\w+\.\w+ twice \(resources\[\d+\] and resources\[\d+\]\)/, /Pull the state again/);
  });

  it('a serial that is not a number', async () => {
    await expectRefused('serial', JSON.stringify({ ...baseJson(), serial: 'seven' }), EXIT.failure, /serial: .*expected number/);
  });

  it('a state holding a DIFFERENT type (its _v1 twin is another implementation)', async () => {
    await expectRefused('different', readFileSync(join(fixtures, 'different-type.tfstate'), 'utf8'), EXIT.denied, /kubernetes_\w+\.\w+/, /import/);
  });

});

describe('bad input: states, accepted and kept exactly', () => {
  it('a 50 MB state is rewritten, every byte but the renamed types and the serial kept', async () => {
    const s = baseJson();
    const pvc = s.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim') as { instances: { attributes: Record<string, unknown> }[] };
    // One big attribute blob, as a large ConfigMap or a long init script would be.
    pvc.instances[0].attributes.padding = 'x'.repeat(50 * 1024 * 1024);
    const text = JSON.stringify(s, null, 2);
    expect(text.length).toBeGreaterThan(50 * 1024 * 1024);
    const r = await rewrite('fifty-mb', text);
    expect(r.exitCode).toBe(EXIT.ok);
    const out = readFileSync(r.output, 'utf8');
    const normalise = (t: string) => t.replace(/kubernetes_(persistent_volume_claim|deployment)_v1/g, 'kubernetes_$1').replace(/"serial": \d+/, '"serial": N');
    expect(normalise(out) === normalise(text)).toBe(true);
  }, 120_000);

  it('unicode and integers beyond 2^53 are kept exactly', async () => {
    const s = baseJson();
    const pvc = s.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim') as { instances: { attributes: Record<string, unknown> }[] };
    pvc.instances[0].attributes.note = 'héllo wörld — 日本語 🚀 \u2028 end';
    const text = JSON.stringify(s, null, 2).replace('"note"', '"big": 123456789012345678901234567890, "precise": 0.1000000000000000055511151231257827, "note"');
    const r = await rewrite('unicode-bignum', text);
    expect(r.exitCode).toBe(EXIT.ok);
    const out = readFileSync(r.output, 'utf8');
    expect(out).toContain('"big": 123456789012345678901234567890');
    expect(out).toContain('"precise": 0.1000000000000000055511151231257827');
    expect(out).toContain('héllo wörld — 日本語 🚀 \u2028 end');
  });
});
