import type { Client } from '@temporalio/client';
import type { CoderClient } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import { formatBlobRef } from '../domain/blob-ref';
import { fleetProgressQuery, type FleetProgress } from '../contracts/migrate-fleet';
import { leftLockLine, type LeftLockReading } from '../domain/left-lock';
import type { FleetStatus } from './fleet';
import { templateLockMarkText } from '../domain/template-lock-mark';
import type { BlobStore } from '../ports/blob-store';
import { runningRunsOnTemplate, startInput } from './fleet-conflicts';

/** Where `fleet status` reads what a terminated run left: Coder and the blob store, when this machine is configured for them. */
export interface LeftLockSources {
  coder: Pick<CoderClient, 'templateByName'> | { unavailable: string };
  blobs?: Pick<BlobStore, 'has' | 'location'>;
  keeperSeconds: number;
}

const QUERY_WAIT_MS = 5_000;

/** The ended run's last progress, from a worker replaying it; undefined when none answers in time. */
async function lastProgress(client: Client, workflowId: string): Promise<FleetProgress | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), QUERY_WAIT_MS)));
  try {
    return await Promise.race([client.workflow.getHandle(workflowId).query(fleetProgressQuery).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 160);
}

/** What a fleet run that was terminated or timed out left of require_active_version; undefined when its template cannot be told. */
export async function readLeftLock(client: Client, workflowId: string, how: LeftLockReading['how'], sources: LeftLockSources): Promise<LeftLockReading | undefined> {
  const progress = await lastProgress(client, workflowId);
  const d = await client.workflow.getHandle(workflowId).describe();
  const input = (progress ? undefined : ((await startInput(client, workflowId, d.runId).catch(() => undefined)) as { organization?: unknown; template?: unknown } | undefined)) ?? {};
  const organization = progress?.organization ?? (typeof input.organization === 'string' ? input.organization : 'coder');
  const template = progress?.template ?? (typeof input.template === 'string' ? input.template : undefined);
  if (!template) return undefined;
  const lock = progress?.activeVersionLock;
  const heldAtEnd = progress ? lock?.state === 'switched-on' || (lock?.state === 'already-on' && lock.byWsmigrate) : undefined;
  const base = { organization, template, how, keeperSeconds: sources.keeperSeconds, ...(heldAtEnd !== undefined ? { heldAtEnd } : {}) };
  if ('unavailable' in sources.coder) return { ...base, setting: { unreadable: sources.coder.unavailable } };
  let t: { id: string; require_active_version?: boolean };
  try {
    t = await sources.coder.templateByName(organization, template);
  } catch (err) {
    return { ...base, setting: { unreadable: errorText(err) } };
  }
  const blobs = sources.blobs;
  const marked = blobs ? await blobs.has(formatBlobRef(blobs.location, sha256Hex(Buffer.from(templateLockMarkText(t.id))))).catch(() => undefined) : undefined;
  const on = t.require_active_version === true;
  const [heldNowBy] = on ? await runningRunsOnTemplate(client, organization, template).catch(() => []) : [];
  return { ...base, setting: { on }, ...(marked !== undefined ? { marked } : {}), ...(heldNowBy ? { heldNowBy } : {}) };
}

/** `status` with what its run left of require_active_version, when it was terminated or timed out (the line only: never fails the status). */
export async function withLeftLock(client: Client, status: FleetStatus, sources: LeftLockSources): Promise<FleetStatus> {
  if (!status.endedBy) return status;
  const reading = await readLeftLock(client, status.workflowId, status.endedBy, sources).catch(() => undefined);
  const line = reading && leftLockLine(reading);
  return line ? { ...status, leftLock: line } : status;
}
