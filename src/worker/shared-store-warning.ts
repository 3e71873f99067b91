import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** Identities of the workers polling the task queue (workflow or activity tasks), except `ownIdentity`. */
export async function otherPollers(connection: Connection, namespace: string, taskQueue: string, ownIdentity?: string): Promise<string[]> {
  const identities = new Set<string>();
  for (const taskQueueType of [temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
    const res = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType,
    });
    for (const p of res.pollers ?? []) if (p.identity && p.identity !== ownIdentity) identities.add(p.identity);
  }
  return [...identities].sort();
}

/**
 * A backup on one worker's disk is unreadable to every other worker, so a compensation that lands
 * elsewhere cannot restore it. Said loudly at start; the worker still runs (one machine is a
 * legitimate setup, and a stale poller entry may be this worker's own previous life).
 */
export async function warnIfFileStoreShared(opts: {
  connection: Connection;
  namespace: string;
  taskQueue: string;
  blobLocation: string;
  ownIdentity?: string;
  log: (line: string) => void;
}): Promise<string[]> {
  if (!opts.blobLocation.startsWith('file://')) return [];
  let others: string[];
  try {
    others = await otherPollers(opts.connection, opts.namespace, opts.taskQueue, opts.ownIdentity);
  } catch (err) {
    opts.log(`wsmigrate worker: could not list the pollers of task queue '${opts.taskQueue}' to check backups are shared: ${(err as Error).message}`);
    return [];
  }
  if (others.length === 0) return [];
  const bar = '!'.repeat(100);
  opts.log(
    [
      bar,
      `WARNING: backups go to ${opts.blobLocation}, this machine's disk, but ${others.length} other worker(s) poll task queue '${opts.taskQueue}': ${others.join(', ')}.`,
      'A compensation or restore that runs on another worker cannot read a backup taken here, and the migration ends needs-attention.',
      'Point every worker at one S3 store: WSMIGRATE_BLOB_URL=s3://bucket/prefix (and WSMIGRATE_S3_ENDPOINT for a non-AWS server).',
      bar,
    ].join('\n'),
  );
  return others;
}
