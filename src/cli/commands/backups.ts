import type { Command } from 'commander';
import type { BlobStore, StoredBlob } from '../../adapters/blob-store';
import { BlobStoreError } from '../../adapters/blob-store';
import { BlobRefError, parseBlobRef } from '../../domain/blob-ref';
import { blobStoreSettings, loadConfig, type WsmigrateConfig } from '../../config/env';
import { parseAge } from '../../domain/backup-retention';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, type CliIo } from '../io';
import { connectForCommand } from '../with-temporal';

const HELP = `
Backups are the state of each workspace before its migration, stored content-addressed in the
blob store (WSMIGRATE_BLOB_URL: s3://bucket/prefix, or file:///dir, the default, one machine
only). Each ref names its store: s3://bucket/prefix/sha256/<hex>. Beside every blob is a small
record (workspace, time, workflow id; never any state).

  wsmigrate backups list                  every blob, newest first
  wsmigrate backups show REF              its records, and a check that it reads back with its hash
  wsmigrate backups prune --older-than 30d          what would be deleted, and why the rest stays
  wsmigrate backups prune --older-than 30d --yes    delete it

Prune never deletes a blob of a migration that has not ended (it asks Temporal which workflows
are running, and refuses to prune when it cannot), nor the newest backup of each workspace, nor a
blob without a record. Needs the WSMIGRATE_ENCRYPTION_KEY of the workers for 'show', and AWS
credentials (standard AWS variables or profile) with s3:DeleteObject for 'prune' on S3.

Exit codes: 0 ok, 1 failure, 2 usage, 4 prune would delete (no --yes).`;

async function store(cfg: WsmigrateConfig, url?: string): Promise<BlobStore> {
  const { openBlobStore } = await import('../../adapters/open-blob-store');
  return openBlobStore({ ...blobStoreSettings(cfg), ...(url ? { url } : {}) });
}

/** The latest record's view of a blob, for one line of the list. */
function summary(b: StoredBlob) {
  const latest = [...b.records].sort((x, y) => (x.storedAt < y.storedAt ? 1 : -1))[0];
  return {
    storedAt: latest?.storedAt ?? b.lastModified,
    kind: latest?.kind ?? '?',
    workspace: latest?.workspace ?? latest?.label ?? '-',
    workflowId: latest?.workflowId ?? '-',
    size: latest?.size,
    ref: b.ref,
  };
}

async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BlobRefError) throw new CliError(err.message, EXIT.usage);
    if (err instanceof BlobStoreError) throw new CliError(err.message, EXIT.failure);
    throw err;
  }
}

export function registerBackupCommands(program: Command, io: CliIo): void {
  const backups = program.command('backups').description('list, inspect and prune the state backups in the blob store').addHelpText('after', HELP);

  backups
    .command('list')
    .description('every blob in the store with its workspace, time and workflow, newest first')
    .option('--json', 'print JSON (every record of every blob)', false)
    .addHelpText('after', '\nExample:\n  wsmigrate backups list          # WSMIGRATE_BLOB_URL (or WSMIGRATE_BLOB_DIR) names the store\n\nExit codes: 0 listed, 2 a bad store setting, 1 the store cannot be read.')
    .action(async (o: { json: boolean }, cmd: Command) => {
      const s = await store(loadConfig());
      const log = await cliLogger(io, cmd);
      log.info({ location: s.location }, 'listing backups');
      const blobs = await storeCall(() => s.list());
      log.debug({ blobs: blobs.length }, 'backups listed');
      if (o.json) return io.out(JSON.stringify(blobs, null, 2));
      const rows = blobs.map(summary).sort((a, b) => (a.storedAt < b.storedAt ? 1 : -1));
      if (rows.length === 0) return io.out(`no blobs in ${s.location}`);
      io.out(`${rows.length} blob(s) in ${s.location}`);
      for (const r of rows) io.out(`${r.storedAt}  ${r.kind.padEnd(15)}  ${r.workspace.padEnd(24)}  ${r.workflowId}  ${r.ref}`);
    });

  backups
    .command('show')
    .description('the records of one blob, and a check that it reads back with its sha256 (no content is printed)')
    .argument('<ref>', 'a ref from `backups list` or a migration status (s3://…/sha256/<hex>, file://…/sha256/<hex> or sha256:<hex>)')
    .option('--json', 'print JSON', false)
    .addHelpText('after', "\nExample:\n  wsmigrate backups show sha256:39caaec5…   # then: wsmigrate state restore <owner/workspace> --backup <ref>\n\nExit codes: 0 shown and intact, 1 missing, unreadable or not matching its sha256.")
    .action(async (ref: string, o: { json: boolean }, cmd: Command) => {
      const cfg = loadConfig();
      const log = await cliLogger(io, cmd);
      const parsed = await storeCall(async () => parseBlobRef(ref));
      const s = await store(cfg, parsed.location);
      log.info({ ref, location: s.location }, 'reading backup');
      const blob = (await storeCall(() => s.list())).find((b) => b.sha256 === parsed.sha256);
      const bytes = await storeCall(() => s.get(ref));
      const result = { ref: blob?.ref ?? ref, sha256: parsed.sha256, size: bytes.length, verified: true, records: blob?.records ?? [] };
      log.info({ ref: result.ref, size: result.size, records: result.records.length }, 'backup reads back with its hash');
      if (o.json) return io.out(JSON.stringify(result, null, 2));
      io.out(`${result.ref}\n  verified: reads back as sha256:${parsed.sha256} (${bytes.length} bytes)`);
      if (result.records.length === 0) io.out('  records: none (stored before wsmigrate kept records)');
      for (const r of result.records) {
        io.out(`  ${r.storedAt}  ${r.kind}  ${r.workspace ?? r.label ?? '-'}  workflow ${r.workflowId ?? '-'}${r.runId ? ` run ${r.runId}` : ''}  encrypted at rest: ${r.encrypted ? 'yes' : 'no'}`);
      }
    });

  backups
    .command('prune')
    .description("delete blobs older than a cut-off, never a running migration's nor the newest backup of a workspace")
    .requiredOption('--older-than <age>', 'e.g. 30d, 12h')
    .option('--yes', 'delete; without this only show what would be deleted', false)
    .option('--json', 'print JSON', false)
    .addHelpText('after', '\nExample:\n  wsmigrate backups prune --older-than 30d        # shows what would go\n  wsmigrate backups prune --older-than 30d --yes  # deletes it\n\nExit codes: 0 done, 2 a bad --older-than, 1 the store cannot be read.')
    .action(async (o: { olderThan: string; yes: boolean; json: boolean }, cmd: Command) => {
      let olderThanMs: number;
      try {
        olderThanMs = parseAge(o.olderThan);
      } catch (err) {
        throw new CliError((err as Error).message, EXIT.usage);
      }
      const cfg = loadConfig();
      const log = await cliLogger(io, cmd);
      const s = await store(cfg);
      log.info({ location: s.location, olderThan: o.olderThan, apply: o.yes }, 'pruning backups');
      const { pruneBackups, runningWorkflows } = await import('../../client/backups');
      let conn: Awaited<ReturnType<typeof connectForCommand>>;
      try {
        conn = await connectForCommand(cfg, log);
      } catch (err) {
        throw new CliError(`cannot reach Temporal at ${cfg.temporalAddress} to see which migrations are running; not pruning blind: ${(err as Error).message}`, EXIT.failure);
      }
      try {
        const listRunning = async () => {
          try {
            return await runningWorkflows(conn.client);
          } catch (err) {
            throw new CliError(`cannot list running workflows in namespace ${cfg.temporalNamespace}; not pruning blind: ${(err as Error).message}`, EXIT.failure);
          }
        };
        const result = await storeCall(() => pruneBackups(s, listRunning, { olderThanMs, apply: o.yes }));
        const toDelete = result.decisions.filter((d) => d.action === 'delete');
        log.info({ blobs: result.decisions.length, deleted: result.deleted.length, wouldDelete: o.yes ? 0 : toDelete.length }, o.yes ? 'prune done' : 'prune planned (no --yes)');
        if (o.json) io.out(JSON.stringify(result, null, 2));
        else {
          for (const d of result.decisions) io.out(d.action === 'keep' ? `keep    ${d.ref}: ${d.reason}` : `${o.yes ? 'deleted' : 'delete '} ${d.ref} (stored ${d.storedAt})`);
          io.out(o.yes ? `deleted ${result.deleted.length} of ${result.decisions.length} blob(s) in ${s.location}` : `would delete ${toDelete.length} of ${result.decisions.length} blob(s) in ${s.location}`);
        }
        if (!o.yes && toDelete.length > 0) throw new CliError('nothing deleted (no --yes)', EXIT.changesPending);
      } finally {
        await conn.connection.close();
      }
    });
}
