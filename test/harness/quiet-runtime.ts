import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every bundle build at INFO; tests only want warnings. Install once per Jest process.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // already installed in this process
}
