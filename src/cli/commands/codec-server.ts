import type { Command } from 'commander';
import { encryptionKeyBytes, loadConfig } from '../../config/env';
import { CliError, EXIT, type CliIo } from '../io';

export function registerCodecServerCommand(program: Command, _io: CliIo): void {
  program
    .command('codec-server')
    .description("serve Temporal's codec-server protocol (/encode, /decode) with the workers' key, so the Web UI and `temporal` CLI can show encrypted payloads")
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on', '8888')
    .option('--ui-origin <origin>', "the Temporal Web UI's origin, the only one a browser may call from (default http://127.0.0.1:$WSMIGRATE_UI_PORT)")
    .addHelpText(
      'after',
      '\nNeeds WSMIGRATE_ENCRYPTION_KEY (the same key as the workers). Set WSMIGRATE_CODEC_TOKEN to require\n' +
        '`Authorization: Bearer <token>` on every request; put it behind TLS (an ingress) when not on loopback.\n\n' +
        'Use it:\n' +
        '  wsmigrate codec-server --ui-origin https://temporal.example.com\n' +
        '  temporal workflow show -w wsmigrate/k8s-dev/alice/dev --codec-endpoint http://127.0.0.1:8888 --codec-auth "Bearer $WSMIGRATE_CODEC_TOKEN"\n' +
        '  Web UI: Settings (Data Encoder) -> http://127.0.0.1:8888 (with "Pass the user access token" off; the UI sends cookies, not our token).',
    )
    .action(async (opts: { host: string; port: string; uiOrigin?: string }) => {
      const cfg = loadConfig();
      const key = encryptionKeyBytes(cfg);
      if (!key) throw new CliError('WSMIGRATE_ENCRYPTION_KEY is not set: the codec server decodes with the workers\' key; set the same key the workers use', EXIT.usage);
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be an integer from 0 to 65535 (got ${JSON.stringify(opts.port)})`, EXIT.usage);
      const uiOrigin = opts.uiOrigin ?? `http://127.0.0.1:${cfg.uiPort}`;
      if (!/^https?:\/\/[^/]+$/.test(uiOrigin)) throw new CliError(`--ui-origin must be scheme://host[:port] with no path (got ${JSON.stringify(uiOrigin)})`, EXIT.usage);
      const { startCodecServer } = await import('../../adapters/codec-server');
      const { EncryptionCodec } = await import('../../adapters/temporal/payload-codec');
      const { processLogger } = await import('../process-logger');
      const logger = processLogger(cfg, 'codec-server', cfg.codecToken ? [cfg.codecToken.reveal()] : []);
      const server = await startCodecServer({
        codec: new EncryptionCodec(key, [], 'the codec server'),
        host: opts.host,
        port,
        uiOrigin,
        bearerToken: cfg.codecToken?.reveal(),
        onRequest: (r) => logger.info({ step: r.path.slice(1), status: r.status, payloads: r.payloads, namespace: r.namespace }, `codec ${r.path} ${r.status}`),
      });
      logger.info({ uiOrigin, keyId: cfg.encryptionKeyId, tokenRequired: Boolean(cfg.codecToken) }, `codec server listening on ${server.url}`);
      await new Promise<void>((resolve) => {
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
      });
      await server.close();
    });
}
