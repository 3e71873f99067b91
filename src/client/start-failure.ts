import { ServiceError } from '@temporalio/client';

/** The gRPC status text behind a ServiceError ("Failed to start Workflow" alone says nothing). */
function grpcDetails(err: ServiceError): string | undefined {
  const cause = err.cause as { details?: string; message?: string } | undefined;
  return cause?.details || cause?.message;
}

const UNREGISTERED_SEARCH_ATTRIBUTE = /no mapping defined for search attribute (\w+)/i;

/**
 * Turns a failed start into an error that carries its cause and, when the namespace lacks one of
 * wsmigrate's search attributes (no worker has run against it yet), names the command that fixes it.
 */
export function explainStartFailure(err: unknown, namespace: string): unknown {
  if (!(err instanceof ServiceError)) return err;
  const details = grpcDetails(err);
  if (!details) return err;
  const missing = UNREGISTERED_SEARCH_ATTRIBUTE.exec(details)?.[1];
  if (missing) {
    return new Error(
      `${err.message}: the Temporal namespace '${namespace}' has no search attribute '${missing}' registered. ` +
        "Run 'wsmigrate setup' once (or start 'wsmigrate worker', which registers them), then start again.",
      { cause: err },
    );
  }
  return new Error(`${err.message}: ${details}`, { cause: err });
}
