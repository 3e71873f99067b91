import type { Command } from 'commander';
import { loadConfig } from '../../config/env';
import { cliLogger } from '../cli-logger';
import type { CliIo } from '../io';
import { connectForCommand } from '../with-temporal';

export function registerSetupCommand(program: Command, io: CliIo): void {
  program
    .command('setup')
    .description("prepare a Temporal namespace for wsmigrate: register its search attributes (idempotent; a worker's start does it too)")
    .option('--json', 'print {"namespace": …, "registered": [names added], "searchAttributes": [all]}', false)
    .addHelpText(
      'after',
      '\nRun once per namespace, before the first `wsmigrate migrate …`, when no worker has run there yet:\n' +
        '  TEMPORAL_ADDRESS=temporal.internal:7233 TEMPORAL_NAMESPACE=coder-ops wsmigrate setup\n\n' +
        'Without it, a start fails with "no search attribute \'WsmigrateTemplate\' registered".\n' +
        'Needs operator rights on the namespace (the same call as `temporal operator search-attribute create`).',
    )
    .action(async (o: { json: boolean }, cmd: Command) => {
      const cfg = loadConfig();
      const log = await cliLogger(io, cmd);
      const { ensureSearchAttributes } = await import('../../worker/ensure-search-attributes');
      const { WSMIGRATE_SEARCH_ATTRIBUTES } = await import('../../contracts/search-attributes');
      // The same TLS and API key as every other connection: a cluster needs them for operator calls too.
      const { connection } = await connectForCommand(cfg, log);
      try {
        const registered = await ensureSearchAttributes(connection, cfg.temporalNamespace);
        const all = WSMIGRATE_SEARCH_ATTRIBUTES.map((sa) => sa.name);
        log.info({ registered }, registered.length > 0 ? 'search attributes registered' : 'search attributes already registered');
        if (o.json) return io.out(JSON.stringify({ namespace: cfg.temporalNamespace, registered, searchAttributes: all }));
        io.out(
          registered.length > 0
            ? `registered ${registered.join(', ')} on namespace '${cfg.temporalNamespace}' at ${cfg.temporalAddress}`
            : `namespace '${cfg.temporalNamespace}' at ${cfg.temporalAddress} already has ${all.join(', ')}; nothing to do`,
        );
      } finally {
        await connection.close();
      }
    });
}
