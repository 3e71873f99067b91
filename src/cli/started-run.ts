import type { Logger } from '../adapters/logging/logger';
import { CliError, describeError, exitCodeOf, type CliIo } from './io';
import { runIdOf } from './with-temporal';
import { explainInterrupt } from './interrupt';
import { remoteModulesWarning } from './module-options';
import type { ExternalModule } from '../domain/template-rewrite';

/** What `migrate` and `recover` say once their run has started, and its result when asked to wait. */
export async function reportStartedRun(
  io: CliIo,
  log: Logger,
  handle: { workflowId: string; result(): Promise<unknown> },
  opts: { taskQueue: string; dryRun: boolean; wait: boolean },
): Promise<void> {
  const run = log.child({ workflowId: handle.workflowId });
  run.info({ runId: runIdOf(handle), taskQueue: opts.taskQueue, dryRun: opts.dryRun }, 'workflow started');
  io.out(`started ${handle.workflowId}`);
  io.out(`  status:  wsmigrate status ${handle.workflowId}`);
  io.out(`  approve: wsmigrate approve ${handle.workflowId} --approver <you>`);
  if (!opts.wait) return;
  run.info('waiting for result');
  let result: { outcome?: string };
  const stopExplaining = explainInterrupt(io, handle.workflowId, `wsmigrate status ${handle.workflowId}  (approve: wsmigrate approve ${handle.workflowId} --approver <you>)`);
  try {
    result = (await handle.result()) as { outcome?: string };
  } catch (err) {
    // The run's own reason, not the SDK's wrapper: "Workflow execution failed" says nothing.
    const cause = (err as { cause?: unknown }).cause ?? err;
    throw new CliError(`${handle.workflowId} failed: ${describeError(cause)}\n  details: wsmigrate status ${handle.workflowId}`, exitCodeOf(cause));
  } finally {
    stopExplaining();
  }
  run.info({ outcome: result?.outcome }, 'workflow finished');
  const warning = remoteModulesWarning((result as { report?: { externalModules?: ExternalModule[] } })?.report?.externalModules ?? []);
  if (warning) io.err(warning);
  io.out(JSON.stringify(result, null, 2));
}
