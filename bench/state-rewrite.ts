/**
 * How the offline rename compares with the first half of the manual runbook (`terraform state rm`
 * of every deprecated instance) on one large state.
 *
 *   node -r @swc-node/register bench/state-rewrite.ts [--instances 2000] [--runs 7] [--warmup 5]
 *
 * Generates a ~10 MB state (about 2,000 instances of deprecated kubernetes types with attribute
 * blobs shaped like real deployments, PVCs, services and secrets), then times renameStateTypes
 * (median of --runs after --warmup untimed runs, and its first run in the process) against real
 * Terraform: one `state rm` with every address (Terraform's best case) and single-address calls,
 * as the runbook does them, extrapolated to every resource.
 */
import execa from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { withScratchDir } from '../src/adapters/terraform/scratch-dir';
import { stateRm } from '../src/adapters/terraform/state-rm';
import { terraformPath } from '../src/config/tools';
import { stateRmArgs } from '../src/domain/import-plan';
import { formatInstanceAddress, formatResourceAddress } from '../src/domain/state';
import { renameStateTypes } from '../src/domain/state-rename';

const PROVIDER = 'provider["registry.terraform.io/hashicorp/kubernetes"]';
const TYPES = ['kubernetes_deployment', 'kubernetes_persistent_volume_claim', 'kubernetes_service', 'kubernetes_secret', 'kubernetes_config_map', 'kubernetes_service_account'];

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function metadata(name: string, i: number): unknown[] {
  const labels: Record<string, string> = {};
  for (let l = 0; l < 12; l++) labels[`app.example.com/label-${l}`] = `value-${i}-${l}`;
  return [{ annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(200) }, generate_name: '', generation: 3, labels, name, namespace: 'coder', resource_version: String(48151623 + i), uid: `a1b2c3d4-0000-4000-8000-${String(i).padStart(12, '0')}` }];
}

function attributes(type: string, name: string, i: number): Record<string, unknown> {
  const env = Array.from({ length: 12 }, (_, e) => ({ name: `ENV_${e}`, value: `value-${i}-${e}-${'v'.repeat(20)}`, value_from: [] }));
  return {
    id: `coder/${name}`,
    metadata: metadata(name, i),
    spec: [{ replicas: '1', selector: [{ match_labels: { app: name } }], template: [{ spec: [{ container: [{ name: 'dev', image: 'codercom/enterprise-base:ubuntu', env }] }] }] }],
    kind: type,
    timeouts: null,
    big_counter: '__BIG__',
  };
}

export function generateState(instanceCount: number): { text: string; resourceAddresses: string[]; instanceAddresses: string[] } {
  const perResource = 5;
  const resources = [];
  const resourceAddresses: string[] = [];
  const instanceAddresses: string[] = [];
  for (let r = 0; r * perResource < instanceCount; r++) {
    const type = TYPES[r % TYPES.length];
    const resource = { mode: 'managed' as const, type, name: `r${r}`, ...(r % 3 === 0 ? { module: `module.ws[${r % 7}]` } : {}) };
    const instances = [];
    for (let k = 0; k < perResource; k++) {
      const i = r * perResource + k;
      instances.push({
        index_key: k,
        schema_version: 1,
        attributes: attributes(type, `ws-${r}-${k}`, i),
        sensitive_attributes: [[{ type: 'get_attr', value: 'spec' }]],
        private: 'eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==',
        dependencies: [`kubernetes_namespace.ns`, `module.ws.kubernetes_secret.s${r}`],
      });
      instanceAddresses.push(formatInstanceAddress(resource, k));
    }
    resourceAddresses.push(formatResourceAddress(resource));
    resources.push({ ...resource, provider: PROVIDER, instances });
  }
  const doc = { version: 4, terraform_version: '1.8.5', serial: 41, lineage: '3f5c1c2e-8a4b-4d7e-9f1a-2b3c4d5e6f70', outputs: {}, resources, check_results: null };
  // Integers above 2^53, as some providers store them, must survive the rewrite byte for byte.
  const text = JSON.stringify(doc, null, 2).replace(/"__BIG__"/g, '12345678901234567890123');
  return { text, resourceAddresses, instanceAddresses };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);
const mb = (kb: number | undefined) => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);

/** Peak RSS (kB) of one `terraform state rm` via /usr/bin/time, when that is installed. */
async function terraformPeakRss(text: string, addresses: string[]): Promise<number | undefined> {
  return withScratchDir('bench-rss', async (dir) => {
    const file = join(dir, 'in.tfstate');
    await writeFile(file, text, { mode: 0o600 });
    const args = stateRmArgs(file, addresses, [`-backup=${file}.bak`]);
    const r = await execa('/usr/bin/time', ['-f', '%M', terraformPath(), ...args], { cwd: dir, reject: false, env: { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' } });
    const kb = Number(r.stderr.trim().split('\n').at(-1));
    return r.exitCode === 0 && Number.isFinite(kb) ? kb : undefined;
  }).catch(() => undefined);
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The least any rewrite of the text costs: read it into objects and write it back out. */
function floorCopy(text: string): string {
  return JSON.stringify(JSON.parse(text));
}

async function main(): Promise<void> {
  const runs = option('runs', 7);
  const { text, resourceAddresses, instanceAddresses } = generateState(option('instances', 2000));
  console.log(`state: ${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB, ${instanceAddresses.length} instances in ${resourceAddresses.length} resources`);

  const warmups = option('warmup', 5);
  // The first run in this process is what one `wsmigrate state rewrite` pays: V8 has not compiled
  // the rename yet. The floor is native code and has nothing to compile. The rename's peak is taken
  // here, before the floor ever runs: peak RSS is a high-water mark, and the floor's object tree is
  // the largest thing either builds.
  const peakBefore = process.resourceUsage().maxRSS;
  let start = performance.now();
  let renamed = renameStateTypes(text).stateText;
  const renameFirst = performance.now() - start;
  const renamePeakDelta = process.resourceUsage().maxRSS - peakBefore;
  // Then warm-up runs of both, untimed: without them the median of a handful of runs mixed runs of
  // the rename before and after V8 optimised it (about five) with the floor's steady state.
  floorCopy(text);
  for (let i = 1; i < warmups; i++) {
    renameStateTypes(text);
    floorCopy(text);
  }
  const renameTimes: number[] = [];
  const floorTimes: number[] = [];
  const renameCpu: number[] = [];
  const floorCpu: number[] = [];
  // Interleaved, so a burst of load on a shared machine hits both the same way; the ratio uses CPU
  // time, which other processes on a busy machine disturb far less than wall time.
  for (let i = 0; i < runs; i++) {
    start = performance.now();
    let cpu = cpuMs();
    renamed = renameStateTypes(text).stateText;
    renameTimes.push(performance.now() - start);
    renameCpu.push(cpuMs() - cpu);
    start = performance.now();
    cpu = cpuMs();
    floorCopy(text);
    floorTimes.push(performance.now() - start);
    floorCpu.push(cpuMs() - cpu);
  }
  if (!renamed.includes('12345678901234567890123') || renamed.length !== text.length + resourceAddresses.length * 3 + instanceAddresses.length * 6) {
    throw new Error('the rename did not produce the expected text; the benchmark is void');
  }

  const rmAllTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await stateRm(text, resourceAddresses);
    rmAllTimes.push(performance.now() - start);
  }
  const rmOneTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await stateRm(text, [resourceAddresses[i]]);
    rmOneTimes.push(performance.now() - start);
  }
  const rmPeak = await terraformPeakRss(text, resourceAddresses);

  const renameMedian = median(renameTimes);
  const floor = median(floorTimes);
  const rmAll = median(rmAllTimes);
  const rmPerResource = median(rmOneTimes) * resourceAddresses.length;
  const rows: [string, string, string, string, string][] = [
    ['what', 'median', 'runs', 'peak RSS', 'vs rename'],
    ['renameStateTypes (offline, lossless)', ms(renameMedian), String(runs), `+${mb(renamePeakDelta)} (in process)`, '1x'],
    ['renameStateTypes, first run in the process (one CLI call)', ms(renameFirst), '1', '-', `${(renameFirst / renameMedian).toFixed(2)}x`],
    ['floor: bare JSON.parse + JSON.stringify (lossy)', ms(floor), String(runs), '-', `${(floor / renameMedian).toFixed(2)}x`],
    ['terraform state rm, all in one call', ms(rmAll), '3', `${mb(rmPeak)} (terraform)`, `${(rmAll / renameMedian).toFixed(0)}x`],
    [`terraform state rm, one call per resource (${resourceAddresses.length} x median of 5)`, `${ms(rmPerResource)} (est.)`, '5', '-', `${(rmPerResource / renameMedian).toFixed(0)}x`],
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join('  '));
  const ratio = median(renameCpu) / median(floorCpu);
  console.log(
    `\nrename ÷ floor, CPU time: ${ms(median(renameCpu))} ÷ ${ms(median(floorCpu))} = ${ratio.toFixed(2)} ` +
      '(target ≤ 1.5; the floor neither validates nor keeps bytes, big integers or key order)',
  );
  console.log('\nstate rm is only the first half of the manual path; each import after it also needs the provider and the cluster.');
}

if (require.main === module) {
  main().catch((error) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });
}
