import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Pinned tool versions; scripts/bootstrap-tools.sh builds exactly these into the cache. */
export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TERRAFORM_VERSION = '1.8.5';

export function toolsCacheDir(): string {
  return process.env.WSMIGRATE_TOOLS_DIR ?? join(homedir(), '.cache', 'wsmigrate', 'bin');
}

/** Path of the Temporal CLI: $WSMIGRATE_TEMPORAL_BIN, else the cached build. */
export function temporalCliPath(): string {
  const explicit = process.env.WSMIGRATE_TEMPORAL_BIN;
  if (explicit) return explicit;
  const cached = join(toolsCacheDir(), `temporal-${TEMPORAL_CLI_VERSION}`);
  if (existsSync(cached)) return cached;
  throw new Error(
    `The Temporal CLI ${TEMPORAL_CLI_VERSION} is not at ${cached}. Run 'make tools' (or scripts/bootstrap-tools.sh) to build it, ` +
      'or set WSMIGRATE_TEMPORAL_BIN to an existing temporal binary.',
  );
}

/** Path of Terraform: $WSMIGRATE_TERRAFORM_BIN, else the link bootstrap-tools.sh left in the cache. */
export function terraformPath(): string {
  const explicit = process.env.WSMIGRATE_TERRAFORM_BIN;
  if (explicit) return explicit;
  const cached = join(toolsCacheDir(), 'terraform');
  if (existsSync(cached)) return cached;
  throw new Error(
    `No Terraform at ${cached}. Run 'make tools' (or scripts/bootstrap-tools.sh) to build Terraform ${TERRAFORM_VERSION} ` +
      'or link a terraform >= 1.8 there, or set WSMIGRATE_TERRAFORM_BIN.',
  );
}

/** The S3 server the blob store tests run against (Apache-2.0, POSIX backend). */
export const VERSITYGW_VERSION = '1.8.0';

/** Path of versitygw: $WSMIGRATE_VERSITYGW_BIN, else the cached build; undefined when neither exists. */
export function versitygwPath(): string | undefined {
  const explicit = process.env.WSMIGRATE_VERSITYGW_BIN;
  if (explicit) return explicit;
  const cached = join(toolsCacheDir(), `versitygw-${VERSITYGW_VERSION}`);
  return existsSync(cached) ? cached : undefined;
}
