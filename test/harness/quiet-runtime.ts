import { inspect } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { recordWorkerLog } from './worker-log';

// The runtime logger takes everything (TRACE) so the secret scans read what any production log
// level could print; the console only shows warnings. Install once per Jest test file.
try {
  Runtime.install({
    logger: new DefaultLogger('TRACE', ({ level, message, meta }) => {
      const line = `[${level}] ${message}${meta === undefined ? '' : ` ${inspect(meta, { depth: 8, breakLength: Infinity, maxStringLength: Infinity })}`}`;
      recordWorkerLog(line);
      if (level === 'WARN' || level === 'ERROR') process.stderr.write(`${line}\n`);
    }),
  });
} catch {
  // already installed in this process
}
