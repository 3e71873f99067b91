import { sha256Hex } from '../adapters/hash';
import type { CoderApi } from './ports';

/** sha256 of the state Coder holds for a build; state bytes themselves go no further. */
export async function stateSha256(coder: CoderApi, buildId: string): Promise<string> {
  return sha256Hex(await coder.getWorkspaceBuildState(buildId));
}

/** PUTs state onto a build with no build run, then returns the sha256 of what Coder holds afterwards. */
export async function putStateAndReadBack(coder: CoderApi, buildId: string, bytes: Buffer): Promise<string> {
  await coder.putWorkspaceBuildState(buildId, bytes);
  return stateSha256(coder, buildId);
}
