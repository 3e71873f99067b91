import { failureText } from '../client/failure-text';

/**
 * Temporal's "no such namespace", however a command met it: the SDK's `Namespace not found: 'x'`, the
 * raw gRPC `5 NOT_FOUND: Namespace x is not found.`, or either inside a command's own words. Each
 * command said it differently (one blamed the worker's search attributes); a wrong TEMPORAL_NAMESPACE
 * is a setting to fix, so it is said once, the same way, with what to do.
 */
export function missingNamespaceMessage(err: unknown): string | undefined {
  const text = err instanceof Error ? `${err.message} ${failureText(err)}` : failureText(err);
  const name = /Namespace not found: '([^']+)'/.exec(text)?.[1] ?? /Namespace (\S+) is not found/.exec(text)?.[1];
  if (!name) return undefined;
  return (
    `Temporal has no namespace '${name}' (TEMPORAL_NAMESPACE). Set TEMPORAL_NAMESPACE to the namespace your workers use ` +
    `('temporal operator namespace list' shows them), or create it ('temporal operator namespace create --namespace ${name}'; on Temporal Cloud, in its console), ` +
    `then 'wsmigrate setup' registers wsmigrate's search attributes there.`
  );
}
