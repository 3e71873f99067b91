import type { Logger } from '../adapters/logging/logger';
import { CliError, describeError, exitCodeOf, type CliIo } from './io';
import { runIdOf } from './with-temporal';
import { explainInterrupt } from './interrupt';
import { remoteModulesWarning } from './module-options';
import type { ExternalModule } from '../domain/template-rewrite';
import { whoMayApprove, type PendingApproval } from '../domain/approval-policy';
import { approvalCommands } from '../domain/run-details';
import { templateNextStep } from './template-version-line';

/** How often `--wait` asks the run which gate it waits at. */
const GATE_POLL_MS = 1000;

/**
 * While `--wait` waits, says each gate as it opens (its summary, who may approve, the exact command),
 * so a wait at a gate never looks like a hang. Returns the function that stops the watching.
 */
function announceGates(io: CliIo, log: Logger, workflowId: string, pending: () => Promise<PendingApproval | undefined>, pollMs: number): () => void {
  let last = '';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const poll = async () => {
    const p = await pending().catch(() => undefined); // no worker to answer yet: ask again later
    if (stopped) return;
    const key = p ? `${p.gateId}:${p.planHash}` : '';
    if (p && key !== last) {
      log.info({ gate: p.gateId, planHash: p.planHash }, 'waiting for approval');
      io.out(`waiting for approval of '${p.gateId}' since ${p.requestedAt}: ${p.summary}`);
      io.out(`  approvers: ${whoMayApprove(p)}`);
      io.out(`  ${approvalCommands(workflowId, p).cli}   (or: wsmigrate reject ${workflowId} --approver <you>)`);
    }
    last = key;
    timer = setTimeout(() => void poll(), pollMs);
  };
  void poll();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** What `migrate` and `recover` say once their run has started, and its result when asked to wait. */
export async function reportStartedRun(
  io: CliIo,
  log: Logger,
  handle: { workflowId: string; result(): Promise<unknown> },
  opts: { taskQueue: string; dryRun: boolean; wait: boolean; pendingApproval?: () => Promise<PendingApproval | undefined>; gatePollMs?: number },
): Promise<void> {
  const run = log.child({ workflowId: handle.workflowId });
  run.info({ runId: runIdOf(handle), taskQueue: opts.taskQueue, dryRun: opts.dryRun }, 'workflow started');
  io.out(`started ${handle.workflowId}`);
  io.out(`  status:  wsmigrate status ${handle.workflowId}`);
  // A dry run asks no one: offering an approve command would send the operator looking for a gate.
  io.out(opts.dryRun ? '  dry run: nothing to approve, nothing changes' : `  approve: wsmigrate approve ${handle.workflowId} --approver <you>`);
  if (!opts.wait) return;
  run.info('waiting for result');
  let result: { outcome?: string };
  const stopExplaining = explainInterrupt(io, handle.workflowId, `wsmigrate status ${handle.workflowId}  (approve: wsmigrate approve ${handle.workflowId} --approver <you>)`);
  const stopAnnouncing = opts.pendingApproval ? announceGates(io, run, handle.workflowId, opts.pendingApproval, opts.gatePollMs ?? GATE_POLL_MS) : () => undefined;
  try {
    result = (await handle.result()) as { outcome?: string };
  } catch (err) {
    // The run's own reason, not the SDK's wrapper: "Workflow execution failed" says nothing.
    const cause = (err as { cause?: unknown }).cause ?? err;
    throw new CliError(`${handle.workflowId} failed: ${describeError(cause)}\n  details: wsmigrate status ${handle.workflowId}`, exitCodeOf(cause));
  } finally {
    stopAnnouncing();
    stopExplaining();
  }
  run.info({ outcome: result?.outcome }, 'workflow finished');
  const warning = remoteModulesWarning((result as { report?: { externalModules?: ExternalModule[] } })?.report?.externalModules ?? []);
  if (warning) io.err(warning);
  io.out(JSON.stringify(result, null, 2));
  const next = templateNextStep(handle.workflowId, result as { outcome?: string; versionId?: string; versionName?: string });
  if (next) io.err(next);
}
