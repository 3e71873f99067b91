// The settings the domain's and the activities' mutation runs share (stryker.config.mjs,
// stryker.activities.config.mjs), each area against its own unit tests. Their tests need no Temporal
// server: the activities run on the in-process Coder simulator, so the jest global setup (which
// starts a dev server) is skipped.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.WSMIGRATE_UNIT_ONLY ??= '1';
// The domain tests that ask an oracle (the real Terraform's state list, plan and fmt; hcl2json) keep
// its answer per input here (test/harness/oracle-memo.ts): a mutant that leaves the input unchanged
// gets the same answer without asking again. Absolute, so every sandbox's test runners share it.
process.env.WSMIGRATE_ORACLE_MEMO_DIR ??= join(dirname(fileURLToPath(import.meta.url)), 'reports', 'mutation', 'oracle-memo');
// Properties run at most 100 generated inputs a mutant (test/harness/property-runs.ts).
process.env.WSMIGRATE_PROPERTY_RUNS_CAP ??= '100';

const AREAS = {
  // A part's run fails under its own `break` (PARTS), else under its area's: 70 until a whole run sets one.
  domain: { break: 70, timeoutMS: 10_000 },
  activities: { break: 70, timeoutMS: 20_000 },
};

/**
 * `file:first-last`, Stryker's line range, found by the text of its first line (the first line holding
 * `from`) and of its last (the first line from there holding `to`, or `from`'s line plus `to` lines
 * when a number; then `plus` lines more, for a block's closing brace): a range that follows the code when lines are added above it, and refuses to load,
 * naming the text, when the code it names is gone.
 * @param {string} file
 * @param {string} from
 * @param {string | number} to
 * @param {number} [plus]
 */
export function linesOf(file, from, to, plus = 0) {
  const lines = readFileSync(join(dirname(fileURLToPath(import.meta.url)), file), 'utf8').split('\n');
  const first = lines.findIndex((l) => l.includes(from));
  if (first < 0) throw new Error(`stryker.shared.mjs: no line of ${file} holds ${JSON.stringify(from)}: the safety branch a workflows part names moved or changed; fix the part's anchors`);
  const last = typeof to === 'number' ? first + to : lines.findIndex((l, i) => i >= first && l.includes(to));
  if (last < 0 || last >= lines.length) throw new Error(`stryker.shared.mjs: no line of ${file} after ${JSON.stringify(from)} holds ${JSON.stringify(to)}: fix the part's anchors`);
  return `${file}:${first + 1}-${last + 1 + plus}`;
}

/**
 * The parts a whole run is made of, each with its own reports and incremental file: Stryker writes its
 * results at the end only, so a run stopped midway keeps the parts it finished. scripts/mutate.sh
 * runs them in this order; WSMIGRATE_MUTATE_PART picks one.
 */
export const PARTS = {
  domain: {
    // `break`: just under the part's last run (whole: core 86.35% and plan 94.06% on 2026-12-02, hcl
    // 88.07%, state 90.54% and scanner 78.29% on 2026-12-06; from their baselines on 2026-12-06: core
    // 88.95%, hcl 91.68%, state 93.04%, scanner 84.05%, its break kept a point lower since one of its
    // cost-only survivors is sometimes killed and sometimes not); a part without one falls back to its area's until a whole run sets it.
    core: { mutate: ['src/domain/*.ts', '!src/domain/{state-rename,template-rewrite,template-model,type-map}.ts'], break: 89 },
    plan: { mutate: ['src/domain/plan/**/*.ts'], break: 93 },
    // hcl: 89 since 2026-12-07: the two protections added that day (claim-making-sets, manifest-kinds:
    // 452 mutants at 76.33%, their survivors mostly fail-closed equivalents, docs/mutation-survivors.md)
    // take the part from 91.68% to about 89.5% until a whole run measures it.
    hcl: { mutate: ['src/domain/hcl/**/*.ts', 'src/domain/{template-rewrite,template-model}.ts'], break: 89 },
    state: { mutate: ['src/domain/state/**/*.ts', '!src/domain/state/json-spans.ts', 'src/domain/{state-rename,type-map}.ts'], break: 92 },
    // The JSON scanner is under every state parse: against every domain test, each of its mutants ran
    // all the state tests (0.2-0.3 mutants a second). Judged by the state reader's own tests, whose
    // properties hold it to JSON.parse, and the state rename's, which splice the spans it finds: a
    // lower bound on what the whole suite catches.
    scanner: { mutate: ['src/domain/state/json-spans.ts'], tests: ['<rootDir>/test/domain/state/**/*.test.ts', '<rootDir>/test/domain/state-rename*.test.ts'], break: 83 },
  },
  activities: {
    // 2026-12-06: a-c 95.58% (79.11% on 2026-12-02, before archive-versions.ts had unit tests), d-p 93.10% (63.34% whole, before its unit tests).
    // 2026-12-06 evening: 85.27% from the old baseline (the newer code measured first), 96.39% after its safety files' tests.
    'a-c': { mutate: ['src/activities/[a-c]*.ts'], break: 96 },
    // d-p: 87.23% when the code landed since was first measured (2026-12-06 evening), 92.53% with its survivors' tests.
    // metered.ts (the activities' metrics) is tested beside the metrics it feeds, test/adapters/metrics/.
    'd-p': { mutate: ['src/activities/[d-p]*.ts'], tests: ['<rootDir>/test/activities/**/*.test.ts', '<rootDir>/test/adapters/metrics/metrics-units.test.ts'], break: 92 },
    // 2026-12-06: q-z 71.38% whole, 87.01% once rewrite-template-source.ts had unit tests; 87.20% (579 of 664) from
    // that baseline after the sample and restore tests, restore-by-build.ts's newer code measured for the first time.
    // 87.92% (582 of 662) after the failed start's stop and the retried attempts' tests (2026-12-06, late).
    'q-z': { mutate: ['src/activities/[q-z]*.ts'], break: 87 },
  },
  // The workflows' safety branches (scripts/workflow-mutants.mjs), each part against the dev-server
  // tests that reach it, whole (`testNamePattern` keeps to those of the branch). Ranges are found by
  // their lines' text (linesOf), so they follow the code.
  workflows: {
    // migrateWorkspace: the guard's deny, and the apply gate forced open by needs-approval.
    migrate: {
      mutate: [
        linesOf('src/workflows/migrate-workspace.ts', "if (verdict.verdict === 'deny')", "gates.request('apply'"),
        linesOf('src/workflows/migrate-workspace.ts', "if (applyGate === 'rejected'", 2),
      ],
      tests: ['<rootDir>/test/workflows/guard-verdicts.test.ts'],
      testNamePattern: 'a migration whose',
      // 2026-12-06: 58.97% (the survivors: messages, equivalents, and branches other test files kill; docs/mutation-survivors.md).
      break: 58,
    },
    // recovery: the guard's deny, the gate asked whatever the policy (recoveryNeedsPerson), and the
    // protected-object check after the start.
    recover: {
      mutate: [
        linesOf('src/workflows/recover-workspace.ts', "if (verdict.verdict === 'deny')", 6),
        linesOf('src/workflows/recover-workspace.ts', 'const askAnyway = recoveryNeedsPerson(', "gates.request('recover'"),
        linesOf('src/workflows/recover-workspace.ts', 'const check = await acts.checkProtectedKept(', 0),
      ],
      tests: ['<rootDir>/test/workflows/guard-verdicts.test.ts'],
      testNamePattern: 'a recovery whose',
      // 2026-12-06: 81.25%.
      break: 81,
    },
    // gate-watch: an approval gate watching for builds made under it (workflows/gate-watch.ts, shared by
    // the apply and recover gates), and what the recover gate hands it and says once its plan is stale.
    'gate-watch': {
      mutate: [
        'src/workflows/gate-watch.ts',
        linesOf('src/workflows/recover-workspace.ts', 'function recoverApproving(', 4),
        linesOf('src/workflows/recover-workspace.ts', "patchId: 'wsmigrate-recover-gate-watch'", 'approving: recoverApproving('),
        linesOf('src/workflows/recover-workspace.ts', "startedOver = `Try ${round + 1}", 0),
        linesOf('src/workflows/recover-workspace.ts', '`${startedOver ? `${startedOver} ` :', 0),
      ],
      tests: ['<rootDir>/test/workflows/stale-recover-gate.test.ts'],
      testNamePattern: 'the gate says the plan is stale|let through by the policy',
      // 2026-12-07: 51.56% (33 of 64) before the first-look assertion and the policy-none test (5 more
      // killed by hand, ~59% expected); `--survivors` re-tests the rest (docs/mutation-survivors.md).
      break: 51,
    },
    // lock-end: a fleet run gives require_active_version back as it ends (fleet-lock-end.ts), and where
    // migrate-fleet.ts calls it (every ending, the failed and cancelled ones too; the lock asked uncancellable).
    'lock-end': {
      mutate: [
        'src/workflows/fleet-lock-end.ts',
        linesOf('src/workflows/migrate-fleet.ts', 'if (seen.run && !(err instanceof ContinueAsNew)) await giveBackLockAtEnd', 0),
        linesOf('src/workflows/migrate-fleet.ts', "st.activeVersionLock = patched('wsmigrate-lock-give-back-at-end')", 0),
        linesOf('src/workflows/migrate-fleet.ts', 'await giveBackLockAtEnd(run);', 0),
      ],
      // replay.test.ts: the released version's fleet history replays only while its runs (begun before the patch) give nothing back.
      tests: ['<rootDir>/test/workflows/fleet-lock-window.test.ts', '<rootDir>/test/workflows/replay.test.ts'],
      testNamePattern: "Temporal's cancel ends it|keeps the operator's setting on|gives it back before it fails|give-back fails|never held the setting|lost wsmigrate's mark|every recorded history replays",
      // 2026-12-07: 44.00% (22 of 50) with the first three tests; 83.33% (40 of 48) after the dawn round's, 3 untested;
      // whole again (49), 85.71%; 95.92% (47 of 49) with the older activity's test (docs/mutation-survivors.md).
      break: 95,
    },
    // fleet-dormant: a fleet counts a running dormant workspace skipped (never failed), with who must act,
    // whether discovery found it or its preflight did (fleet-children.ts), and holds one made dormant after
    // its migration's stop saying so.
    'fleet-dormant': {
      mutate: [
        linesOf('src/workflows/fleet-children.ts', "if (r.outcome === 'skipped') {", 8),
        linesOf('src/workflows/fleet-children.ts', 'function addSkip(', 2),
        linesOf('src/workflows/fleet-children.ts', 'reason: h.dormant', 2),
        linesOf('src/workflows/fleet-children.ts', 'for (const d of page.dormant', 4),
      ],
      // migrate-fleet.test.ts's re-run: the hold of a workspace whose last migration needs attention (not dormant), its whole reason.
      tests: ['<rootDir>/test/workflows/fleet-dormant.test.ts', '<rootDir>/test/workflows/dormancy-during-migration.test.ts', '<rootDir>/test/workflows/migrate-fleet.test.ts'],
      testNamePattern: 'counts them skipped|option A|a later fleet holds|a re-run leaves it for a human|the reasons of the last 100',
      // 2026-12-07: 65.63% with fleet-dormant.test.ts alone, 71.88% with the later fleet's test; 93.75% (30 of 32) with the
      // ETA, the 101 skips and the held re-run (its survivors re-tested; the 2 left are the skip reason's cut, docs/mutation-survivors.md).
      break: 93,
    },
    // preflight-once: the workspace run's preflight, one local attempt, retried as a regular activity
    // (which status shows) only after a failure a retry could fix (isFinalFailure).
    'preflight-once': {
      mutate: [
        linesOf('src/workflows/activity-presets.ts', 'export function isFinalFailure(', 4),
        linesOf('src/workflows/migrate-workspace.ts', "if (patched('wsmigrate-preflight-retries-shown')) {", '} else {', 2),
      ],
      // replay.test.ts: the released version's workspace histories take the path of runs begun before the patch.
      tests: ['<rootDir>/test/cli/status-preflight-retries.test.ts', '<rootDir>/test/workflows/replay.test.ts'],
      testNamePattern: 'status of a migration whose preflight|every recorded history replays',
      // 2026-12-07: 54.84% (17 of 31); 70.97% (22 of 31) with the unknown version's test and the replayed histories. The 9
      // left are equivalents: isFinalFailure's clauses no failure tells apart, the pre-patch path's replay (docs/mutation-survivors.md).
      break: 70,
    },
    // zero-touch: the health check before "already migrated", and a lost volume after the start.
    'zero-touch': {
      mutate: [
        linesOf('src/workflows/zero-touch-workspace.ts', 'if (pf.alreadyMigrated) {', "if (health.health === 'busy' || health.health === 'unreadable')", 3),
        linesOf('src/workflows/zero-touch-workspace.ts', 'const check = await acts.postBuildCheck', 'throw failure;', 1),
      ],
      tests: ['<rootDir>/test/workflows/zero-touch-safety.test.ts'],
      testNamePattern: 'zeroTouchWorkspace meets',
      // 2026-12-06: 79.63% with the busy/unreadable tests (46.30% before them, 35.19% before the already-migrated test;
      // docs/mutation-survivors.md).
      break: 79,
    },
  },
};

/**
 * One area's run: `src/<area>/**` (or the files of one of its PARTS) against `test/<area>/**`
 * only. A domain mutant is judged by the domain's tests alone: with the activity tests in the run, per-test coverage counted every activity test that parses a template as covering
 * the HCL parser, and each parser mutant re-ran them with their simulators (~12 s a mutant, ~15 h a
 * whole run; 2026-12-01, docs/mutation-survivors.md).
 * @param {keyof typeof AREAS} area
 * @param {string} [part] a key of PARTS[area]; absent, every file of the area
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function unitRunOf(area, part) {
  const { timeoutMS } = AREAS[area];
  if (part && !PARTS[area][part]) throw new Error(`WSMIGRATE_MUTATE_PART=${part}: ${area} has the parts ${Object.keys(PARTS[area]).join(', ')}`);
  const name = part ? `${area}-${part}` : area;
  const breakAt = (part && PARTS[area][part].break) || AREAS[area].break;
  return {
    packageManager: 'npm',
    testRunner: 'jest',
    jest: {
      projectType: 'custom',
      configFile: 'jest.config.js',
      // Each mutant runs only the test files that import its file (then only the tests that cover it).
      enableFindRelatedTests: true,
      config: {
        testMatch: (part && PARTS[area][part].tests) || [`<rootDir>/test/${area}/**/*.test.ts`],
        // jest.config's roots hold only test/: findRelatedTests then follows a test's own imports but not
        // those of the src files under them, so a module reached through another (the HCL parser under
        // the template rewrite) had its mutants run against a handful of tests, or none.
        roots: ['<rootDir>/src', '<rootDir>/test'],
        // jest.config's setup file installs Temporal's Runtime logger in every test file: it loads
        // @temporalio/worker there, ~1 s a file with none of its tests run (16 domain files related to
        // the lexer: 16 s a mutant, 2-3 s without). These tests read no worker log (the secret scans do, elsewhere).
        setupFiles: [],
      },
    },
    coverageAnalysis: 'perTest',
    // No TypeScript checker: its incremental type check of every mutant, not the tests, set the pace
    // (327 mutants in 29.6 min with it at load 17-20; 350 in 4 min without at load 10). A mutant that
    // would not type-check is run anyway and the tests decide it, as they decide every other.
    checkers: [],
    mutate: part ? PARTS[area][part].mutate : [`src/${area}/**/*.ts`],
    // A static mutant (a module-level constant) needs every test for each run: ~35 s apiece on
    // 2 cores. Left out (README's table counts non-static mutants; docs/mutation.md says why).
    ignoreStatic: true,
    ignorePatterns: ['dist', 'coverage', '.wsmigrate', 'reports', 'deploy', '.stryker-tmp*', '.tmp'],
    concurrency: 2,
    // A jest runner that ran many mutants holds every module registry it loaded (hcl2json's WASM
    // among them): past 1-2 GB its collections, not the tests, set the pace. A fresh one costs ~2 s.
    maxTestRunnerReuse: 200,
    timeoutMS,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    // A second run re-tests only the mutants whose code or covering tests changed.
    incremental: true,
    incrementalFile: `reports/mutation/${name}-incremental.json`,
    tempDirName: `.stryker-tmp-${name}`,
    cleanTempDir: 'always',
    thresholds: { high: 90, low: 85, break: breakAt },
  };
}
