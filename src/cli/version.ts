import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Node.js major wsmigrate supports and its image ships (`engines` in package.json, the Dockerfile's base). */
export const SUPPORTED_NODE_MAJOR = 24;

/** The project root from `src/cli` (tests) and `dist/cli` (the binary, the image) alike. */
const ROOT = join(__dirname, '..', '..');

function versionOf(packageJson: string): string {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * `wsmigrate --version`: what a bug report needs. The SDK's version is read from its package.json, not
 * by loading it, so the offline commands stay free of `@temporalio/*`.
 */
export function versionText(nodeVersion: string = process.versions.node): string {
  let sdk = 'unknown';
  try {
    sdk = versionOf(require.resolve('@temporalio/client/package.json'));
  } catch {
    // not installed next to the CLI: said as unknown
  }
  return `wsmigrate ${versionOf(join(ROOT, 'package.json'))} (Node.js ${nodeVersion}, Temporal TypeScript SDK ${sdk})`;
}

/**
 * A warning when the Node.js running wsmigrate is not the supported one, or undefined. It runs (the
 * SDK takes Node 18 and later), but it is neither tested nor supported there: Node 20 left support
 * in April 2026.
 */
export function unsupportedNodeWarning(nodeVersion: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(nodeVersion)?.[1]);
  if (Number.isFinite(major) && major >= SUPPORTED_NODE_MAJOR) return undefined;
  return (
    `Node.js ${nodeVersion.replace(/^v/, '')} is not supported: wsmigrate is built and tested on Node.js ${SUPPORTED_NODE_MAJOR} (the current LTS), and its image ships it. ` +
    `Run it with Node.js ${SUPPORTED_NODE_MAJOR}: from the repository, 'export PATH="$(bash scripts/bootstrap-tools.sh --node-bin-dir):$PATH"' fetches one into ~/.cache/wsmigrate/bin/ once; or use the image.`
  );
}
