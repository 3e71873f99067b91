// Jest's testSequencer for this suite: the longest files first, by a committed list of durations.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- Jest loads this file as plain CommonJS, before any transform
const Sequencer = require('@jest/test-sequencer').default;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { relative, sep } = require('node:path');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const durations = require('./test-durations.json');

/**
 * Jest orders files by its record of the last run (per checkout path), and files it has no record of
 * FIRST, by size. So in a checkout where only a few files were run alone (the slow ones one is working
 * on), those slow files, having a record, go last, and one worker runs them alone at the end; and a
 * fresh clone (CI) has no record at all. Here every file has a duration: this checkout's record if
 * there is one, else test/harness/test-durations.json (scripts/test-durations.js writes it from a
 * whole run's results); the longest go first. A file in neither (a new one) goes first, by size, as
 * Jest would; a file that failed last time goes before all, as Jest does.
 */
class DurationSequencer extends Sequencer {
  sort(tests) {
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    const listed = (t) => {
      const s = durations.files[relative(t.context.config.rootDir, t.path).split(sep).join('/')];
      return s === undefined ? undefined : s * 1000;
    };
    const key = new Map(tests.map((t) => [t, { failed: this.hasFailed(t), ms: this.time(t) ?? listed(t) }]));
    return [...tests].sort((a, b) => {
      const ka = key.get(a);
      const kb = key.get(b);
      if (ka.failed !== kb.failed) return ka.failed ? -1 : 1;
      if ((ka.ms === undefined) !== (kb.ms === undefined)) return ka.ms === undefined ? -1 : 1;
      if (ka.ms !== undefined && kb.ms !== undefined && ka.ms !== kb.ms) return kb.ms - ka.ms;
      return size(b) - size(a);
    });
  }
}

module.exports = DurationSequencer;
