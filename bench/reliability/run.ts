/**
 * The reliability figures: runs the bad-input and secret suites (test/chaos) on a real Temporal dev
 * server and the Coder simulator, and prints one table. Writes, next to this file:
 *   results.json  every figure, and every bad-input case as { name, category, expected, passed, refused }
 *   RESULTS.md    the same table, linked from the README
 *
 *   node -r @swc-node/register bench/reliability/run.ts      (make bench-reliability)
 *
 * The chaos rows come from test/chaos/chaos-fleet (and its variants in chaos-fleet-variants: the
 * lifecycle executor firing, an AGPL Coder), fault-storm and blob-and-conflict, run here at
 * full size (WSMIGRATE_CHAOS_SCALE=full: 200 workspaces, 20 worker kills, 2 server restarts); each
 * test writes what it measured to WSMIGRATE_CHAOS_REPORT_DIR. `--small` runs the normal-suite sizes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface JestAssertion {
  title: string;
  ancestorTitles: string[];
  status: 'passed' | 'failed' | 'pending' | 'todo' | 'skipped' | 'disabled';
}
interface JestResults {
  testResults: { name: string; assertionResults: JestAssertion[] }[];
}
interface SecretsReport {
  secretsSeeded: number;
  placesScanned: number;
  runs: number;
  found: string[];
}

export interface BadInputCase {
  name: string;
  category: string;
  /** 'refused': must be refused with a clear error and nothing changed; 'accepted': odd but valid, must come out exact. */
  expected: 'refused' | 'accepted';
  /** The test ran and held (for 'refused': refused clearly, nothing pushed or deleted). */
  passed: boolean;
  refused: boolean;
  /** A case that needs a workflow not built yet (e.g. migrateFleet). */
  notMeasuredYet?: boolean;
}

const here = __dirname;
const root = join(here, '..', '..');

/** What test/chaos/chaos-fleet-variants.test.ts wrote for each variant. */
export interface ChaosVariantFigures {
  seed: number;
  workspaces: number;
  workerKills: number;
  serverRestarts: number;
  totalSeconds: number;
  summary: Record<string, number>;
  coder: { onTarget: number; onOriginal: number; elsewhere: number };
  activeVersionLock: string;
  requireActiveVersionReadBack: boolean;
  lifecycle?: { autostartOnly: number; ttlOnly: number; both: number; autostarts: number; autostops: number; autobuildsDuringFleet: number };
  pvcLosses: number;
  pvcsReplaced: number;
  duplicatePushes: number;
  falseMigrated: string[];
  notMigrated: string[];
}

/** What each chaos test wrote (see test/chaos/fixtures/chaos-report.ts); absent when it did not get that far. */
export interface ChaosFigures {
  chaosFleet?: {
    seed: number;
    workspaces: number;
    workerKills: number;
    serverRestarts: number;
    totalSeconds: number;
    summary: Record<string, number>;
    coder: { onTarget: number; onOriginal: number; elsewhere: number };
    pvcLosses: number;
    pvcsReplaced: number;
    duplicatePushes: number;
    duplicateBuilds: number;
  };
  /** The same chaos with Coder's lifecycle executor firing (autostart/autostop on a share of the workspaces). */
  chaosFleetLifecycle?: ChaosVariantFigures;
  /** The same chaos on an AGPL Coder (require_active_version accepted, ignored, read back false). */
  chaosFleetAgpl?: ChaosVariantFigures;
  faultStorm?: {
    workspaces: number;
    faults: Record<string, number>;
    summary: Record<string, number>;
    restoredWithReason: number;
    overBudget: number;
    pvcLosses: number;
    pvcsReplaced: number;
  };
  strayUsers?: {
    workspaces: number;
    strayBuilds: number;
    strayBuildsFailed: number;
    /** Owners' starts on the real, unguarded old version, refused by Coder while the fleet held the template to its active version. */
    oldVersionStartsRefused?: number;
    damagedAfterFirstRun: number;
    /** Damaged workspaces the two fleet runs recovered (a plain repair asks no one under policy none). */
    recovered?: number;
    recoveriesApproved: number;
    reportedMigratedWhileDamaged: number;
    firstRun: Record<string, number>;
    secondRun: Record<string, number>;
    finalScan: Record<string, number>;
    pvcLosses: number;
    pvcsReplaced: number;
  };
}

const small = process.argv.includes('--small');

function runSuites(): { jest: JestResults; secrets?: SecretsReport; chaos: ChaosFigures; exitCode: number } {
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-bench-rel-'));
  const jestOut = join(dir, 'jest.json');
  const secretsOut = join(dir, 'secrets.json');
  const chaosDir = join(dir, 'chaos');
  try {
    const run = spawnSync('npx', ['jest', '--runInBand', '--json', `--outputFile=${jestOut}`, 'test/chaos/'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, WSMIGRATE_SECRETS_REPORT: secretsOut, WSMIGRATE_CHAOS_REPORT_DIR: chaosDir, ...(small ? {} : { WSMIGRATE_CHAOS_SCALE: 'full' }) },
    });
    const jest = JSON.parse(readFileSync(jestOut, 'utf8')) as JestResults;
    const readJson = <T>(path: string): T | undefined => {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as T;
      } catch {
        return undefined; // that test did not get as far as its report
      }
    };
    const chaos: ChaosFigures = {
      chaosFleet: readJson(join(chaosDir, 'chaos-fleet.json')),
      faultStorm: readJson(join(chaosDir, 'fault-storm.json')),
      chaosFleetLifecycle: readJson(join(chaosDir, 'chaos-fleet-lifecycle.json')),
      chaosFleetAgpl: readJson(join(chaosDir, 'chaos-fleet-agpl.json')),
      strayUsers: readJson(join(chaosDir, 'stray-users.json')),
    };
    return { jest, secrets: readJson<SecretsReport>(secretsOut), chaos, exitCode: run.status ?? 1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NOT_RUN = 'not measured (the test failed before its report; see above)';
const outcomes = (s: Record<string, number>) =>
  `migrated ${s.migrated + (s.alreadyMigrated ?? 0)}, restored ${s.restored}, needs-attention ${s.needsAttention}, failed ${s.failed}, skipped ${s.skipped}`;

/** The chaos rows of the table, from what the chaos tests measured. */
export function chaosRows(c: ChaosFigures, jest: JestResults): [string, string][] {
  const f = c.chaosFleet;
  const st = c.faultStorm;
  const su = c.strayUsers;
  const lc = c.chaosFleetLifecycle;
  const ag = c.chaosFleetAgpl;
  const chaosOf = (v: ChaosVariantFigures) => `${v.workerKills} SIGKILLs, ${v.serverRestarts} dev-server restart(s), ${v.workspaces} workspaces, seed ${v.seed}, ${v.totalSeconds}s`;
  const coderCount = (v: ChaosVariantFigures) => `Coder's own count: ${v.coder.onTarget} on the new version, ${v.coder.onOriginal} on the old, ${v.coder.elsewhere} elsewhere`;
  const blobTests = jest.testResults.filter((r) => /blob-and-conflict\.test\.ts$/.test(r.name)).flatMap((r) => r.assertionResults);
  return [
    [
      'faults injected by kind (fault storm)',
      st ? `${Object.entries(st.faults).map(([k, v]) => `${k} ${v}`).join(', ')} over ${st.workspaces} workspaces` : NOT_RUN,
    ],
    ['worker kills and server restarts', f ? `${f.workerKills} SIGKILLs of 2 workers, ${f.serverRestarts} dev-server restarts (SQLite), ${f.workspaces} workspaces, seed ${f.seed}, ${f.totalSeconds}s` : NOT_RUN],
    [
      'workspaces by outcome (fleet under chaos)',
      f ? `${outcomes(f.summary)}; Coder's own count: ${f.coder.onTarget} on the new version, ${f.coder.onOriginal} on the old, ${f.coder.elsewhere} elsewhere` : NOT_RUN,
    ],
    [
      'fleet under chaos with the lifecycle executor firing',
      lc?.lifecycle
        ? `${chaosOf(lc)}; autostart on ${lc.lifecycle.autostartOnly}, autostop TTL on ${lc.lifecycle.ttlOnly}, both on ${lc.lifecycle.both}: ${lc.lifecycle.autostarts} autostarts and ${lc.lifecycle.autostops} autostops by the executor (${lc.lifecycle.autobuildsDuringFleet} while the fleet ran); ` +
          `${outcomes(lc.summary)} (each not migrated with its reason, in results.json); ${coderCount(lc)}; falsely reported migrated ${lc.falseMigrated.length}`
        : NOT_RUN,
    ],
    [
      'fleet under chaos on AGPL (require_active_version ignored)',
      ag
        ? `${chaosOf(ag)}; the lock reported ${ag.activeVersionLock} (require_active_version read back ${String(ag.requireActiveVersionReadBack)}); ${outcomes(ag.summary)}; ${coderCount(ag)}; falsely reported migrated ${ag.falseMigrated.length}`
        : NOT_RUN,
    ],
    ['workspaces by outcome (fault storm)', st ? `${outcomes(st.summary)}; restores with their reason ${st.restoredWithReason}/${st.summary.restored}; attempts past a retry budget ${st.overBudget}` : NOT_RUN],
    [
      'PVCs lost or recreated (chaos / chaos + lifecycle / chaos on AGPL / storm / stray users)',
      [f, lc, ag, st, su].map((x) => (x ? `${x.pvcLosses + x.pvcsReplaced}` : '–')).join(' / '),
    ],
    ['duplicate pushes / duplicate builds (fleet under chaos)', f ? `${f.duplicatePushes} / ${f.duplicateBuilds}` : NOT_RUN],
    ['state PUTs (chaos + lifecycle / chaos on AGPL)', [lc, ag].map((x) => (x ? `${x.duplicatePushes}` : '–')).join(' / ')],
    [
      'damaged found / recovered (stray users)',
      su
        ? `${su.recovered ?? '?'} recovered by the fleet's runs (${su.recoveriesApproved} of them approved at a recover gate) / ${su.damagedAfterFirstRun} still damaged after the first run, all found by the scan (${su.strayBuilds} stray builds, ${su.strayBuildsFailed} failed; ${su.reportedMigratedWhileDamaged} reported migrated while damaged; ` +
          `first run ${outcomes(su.firstRun)}; final scan ${Object.entries(su.finalScan).map(([k, v]) => `${k} ${v}`).join(', ')})`
        : NOT_RUN,
    ],
    [
      'owners\' starts on the old (unguarded) version refused (stray users)',
      su?.oldVersionStartsRefused !== undefined ? `${su.oldVersionStartsRefused} refused by Coder (require_active_version held by the fleet), 0 built` : NOT_RUN,
    ],
    ['blob store and conflicts (corrupt, deleted, full disk, foreign push/build)', blobTests.length ? `${blobTests.filter((a) => a.status === 'passed').length} / ${blobTests.length} held` : NOT_RUN],
  ];
}

export function badInputCases(jest: JestResults): BadInputCase[] {
  const cases: BadInputCase[] = [];
  for (const file of jest.testResults) {
    if (!/bad-input[^/]*\.test\.ts$/.test(file.name)) continue;
    for (const a of file.assertionResults) {
      const describe = [...a.ancestorTitles].reverse().find((t) => t.startsWith('bad input:')) ?? a.ancestorTitles[0] ?? '';
      const m = /^bad input: ([^,(]+)/.exec(describe);
      const category = (m?.[1] ?? describe).trim();
      const expected = /accepted/.test(describe) ? 'accepted' : 'refused';
      const notMeasuredYet = a.status === 'todo' || a.status === 'pending';
      const passed = a.status === 'passed';
      cases.push({ name: a.title, category, expected, passed, refused: expected === 'refused' && passed, ...(notMeasuredYet ? { notMeasuredYet } : {}) });
    }
  }
  return cases;
}

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `| ${k.padEnd(w)} | ${v} |`).join('\n');
}

function main(): void {
  const started = Date.now();
  const { jest, secrets, chaos, exitCode } = runSuites();
  const cases = badInputCases(jest);
  const measured = cases.filter((c) => !c.notMeasuredYet);
  const mustRefuse = measured.filter((c) => c.expected === 'refused');
  const accepted = measured.filter((c) => c.expected === 'accepted');
  const byCategory = [...new Set(measured.map((c) => c.category))].map((cat) => {
    const inCat = mustRefuse.filter((c) => c.category === cat);
    return `${cat} ${inCat.filter((c) => c.refused).length}/${inCat.length}`;
  });
  const rows: [string, string][] = [
    ['measure', 'value'],
    ['---', '---'],
    ['bad inputs refused / tried', `${mustRefuse.filter((c) => c.refused).length} / ${mustRefuse.length} (${byCategory.join(', ')})`],
    ['odd but valid inputs kept exactly / tried', `${accepted.filter((c) => c.passed).length} / ${accepted.length}`],
    ['bad-input cases not measured yet', cases.length === measured.length ? '0' : `${cases.length - measured.length} (${cases.filter((c) => c.notMeasuredYet).map((c) => c.name).join('; ')})`],
    [
      'secrets found',
      secrets ? `${secrets.found.length} (${secrets.secretsSeeded} seeded secrets, ${secrets.placesScanned} places scanned, ${secrets.runs} migration runs)` : 'scan did not run (see the test failure above)',
    ],
    ...chaosRows(chaos, jest),
  ];
  const text = table(rows);
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`wsmigrate reliability (${seconds}s, jest exit ${exitCode})\n\n${text}`);
  if (secrets?.found.length) console.log(`\nsecrets found:\n${secrets.found.map((f) => `  ${f}`).join('\n')}`);
  const failed = measured.filter((c) => !c.passed);
  if (failed.length) console.log(`\ncases that did not hold:\n${failed.map((c) => `  [${c.category}] ${c.name}`).join('\n')}`);

  writeFileSync(join(here, 'results.json'), `${JSON.stringify({ generatedAt: new Date().toISOString(), scale: small ? 'small' : 'full', secrets: secrets ?? null, chaos, badInput: cases }, null, 2)}\n`);
  writeFileSync(
    join(here, 'RESULTS.md'),
    `# Reliability figures\n\nGenerated by \`${small ? 'node -r @swc-node/register bench/reliability/run.ts --small' : 'make bench-reliability'}\` (bench/reliability/run.ts) on ${new Date().toISOString().slice(0, 10)}, ` +
      `${small ? "at the normal suite's small sizes (24 workspaces, 3 worker kills, 1 server restart per chaos fleet), not the full size (200, 20, 2) of `make bench-reliability`" : 'at full size (WSMIGRATE_CHAOS_SCALE=full)'}; ` +
      'every case is a test in `test/chaos/`; the full list with each outcome is in [results.json](results.json).\n\n' +
      `${text}\n\n## Bad-input cases\n\n| category | case | expected | held |\n|---|---|---|---|\n` +
      cases.map((c) => `| ${c.category} | ${c.name} | ${c.notMeasuredYet ? 'not measured yet' : c.expected} | ${c.notMeasuredYet ? '–' : c.passed ? 'yes' : '**no**'} |`).join('\n') +
      '\n',
  );
  process.exitCode = exitCode === 0 && failed.length === 0 && (secrets?.found.length ?? 1) === 0 ? 0 : 1;
}

if (require.main === module) main();
