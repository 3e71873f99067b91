import type { Command } from 'commander';
import { blobStoreSettings, loadConfig, requireCoder } from '../../config/env';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, type CliIo } from '../io';

const HELP = `
Puts a state backup taken by wsmigrate back onto a workspace with one build that carries it
(POST /workspaces/{id}/builds with state), on the version and transition of the build the backup
was taken from (found among the workspace's recent builds: Coder keeps each build's state), so
Coder never holds the old types under a _v1 version. Use it when a migration ended
'needs-attention': its status shows the backup ref.

Without --yes it only shows what it would do. It refuses a backup whose hash does not verify, a
state from another workspace (different lineage), a workspace with a build in progress, one
built again between the check and the write, and a version whose types do not fit the backup's (a
migrated backup on an old version destroys the volume). When no recent build holds the backup, name the
build with --version <template version id> and --transition start|stop.

Needs CODER_URL, CODER_SESSION_TOKEN (an Owner's or an Organization Admin's), and the WSMIGRATE_ENCRYPTION_KEY the
worker used. The ref says which store holds the backup (s3://bucket/prefix/sha256/<hex>, read with
your AWS credentials and WSMIGRATE_S3_ENDPOINT; file:///dir/sha256/<hex> only on the machine whose
WSMIGRATE_BLOB_DIR is that dir); a bare sha256:<hex> is read from the configured store.

Example:
  wsmigrate state restore alice/dev --backup s3://wsmigrate-backups/prod/sha256/5548a8… --yes

Exit codes: 0 restored or already restored, 1 failure, 2 usage, 3 refused, 4 would restore (no --yes).`;

export function registerStateRestoreCommand(program: Command, io: CliIo): void {
  const state = program.commands.find((c) => c.name() === 'state') ?? program.command('state');
  state
    .command('restore')
    .description("put a wsmigrate state backup back onto a workspace, by one build that carries it, after checking it is that workspace's")
    .argument('<owner/workspace>', 'the workspace, as owner/name')
    .requiredOption('--backup <ref>', 'the backup ref from `wsmigrate status` (s3://…/sha256/<hex>, file://…/sha256/<hex> or sha256:<hex>)')
    .option('--yes', 'write it; without this only show what would happen', false)
    .option('--version <id>', 'the template version to build the backup on, when no recent build holds it')
    .option('--transition <start|stop>', 'start or stop, with --version')
    .addHelpText('after', HELP)
    .action(async (target: string, o: { backup: string; yes: boolean; version?: string; transition?: string }, cmd: Command) => {
      const [owner, workspace, extra] = target.split('/');
      if (!owner || !workspace || extra !== undefined) throw new CliError(`'${target}' is not owner/workspace (e.g. alice/dev)`, EXIT.usage);
      if (o.transition !== undefined && o.transition !== 'start' && o.transition !== 'stop') throw new CliError(`--transition is start or stop (got '${o.transition}')`, EXIT.usage);
      if ((o.version === undefined) !== (o.transition === undefined)) throw new CliError('--version and --transition go together: they name the build the backup belongs to', EXIT.usage);
      const cfg = loadConfig();
      const { BlobStoreError } = await import('../../adapters/blob-store');
      const { BlobRefError } = await import('../../domain/blob-ref');
      const { openBlobStore } = await import('../../adapters/open-blob-store');
      const { CoderClient } = await import('../../adapters/coder');
      const { applyRestore, planRestore, RestoreRefused } = await import('../../client/restore-backup');
      const { StateFormatError } = await import('../../domain/state');
      const c = requireCoder(cfg);
      const log = await cliLogger(io, cmd);
      const coder = new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli' });
      const blobs = openBlobStore(blobStoreSettings(cfg));
      log.info({ backupRef: o.backup, coderUrl: c.url, apply: o.yes }, 'checking the backup against the workspace');
      let plan;
      try {
        plan = await planRestore(coder, blobs, owner, workspace, o.backup, { ...(o.version ? { templateVersionId: o.version } : {}), ...(o.transition ? { transition: o.transition as 'start' | 'stop' } : {}) });
      } catch (err) {
        if (err instanceof RestoreRefused || err instanceof StateFormatError) throw new CliError(`restore refused: ${err.message}`, EXIT.denied);
        if (err instanceof BlobRefError) throw new CliError(err.message, EXIT.usage);
        if (err instanceof BlobStoreError) throw new CliError(err.message, EXIT.failure);
        throw err;
      }
      if (plan.alreadyRestored) {
        log.info({ backupRef: plan.backupRef, build: plan.buildNumber }, 'already restored');
        io.out(`${plan.workspace} already holds backup ${plan.backupRef} on build #${plan.buildNumber}; nothing to do`);
        return;
      }
      const what = `${plan.target.transition} ${plan.workspace} on version ${plan.target.templateVersionId}${plan.target.fromBuildNumber ? ` (that of build #${plan.target.fromBuildNumber}, which the backup was taken from)` : ''} carrying backup ${plan.backupRef}${plan.parameters ? `, giving back the parameter values build #${plan.target.fromBuildNumber ?? '?'} had and the latest build lost (${plan.parameters.map((p) => `${p.name}=${p.value}`).join(', ')})` : ''}`;
      if (!o.yes) {
        io.out(`would ${what}, after build #${plan.buildNumber} (now sha256 ${plan.currentSha256.slice(0, 12)}…); run again with --yes`);
        throw new CliError('nothing written (no --yes)', EXIT.changesPending);
      }
      log.info({ backupRef: plan.backupRef, build: plan.buildNumber, transition: plan.target.transition }, 'building with the backed-up state');
      let built;
      try {
        built = await applyRestore(coder, plan);
      } catch (err) {
        if (err instanceof RestoreRefused) throw new CliError(`restore refused: ${err.message}`, EXIT.denied);
        throw err;
      }
      log.info({ backupRef: plan.backupRef, build: built.build_number }, 'state restored');
      io.out(`restored: ${what}; build #${built.build_number} succeeded`);
    });
}
