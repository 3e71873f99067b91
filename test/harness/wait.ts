import { WorkflowFailedError } from '@temporalio/client';

/** Polls until `check` holds (errors count as "not yet"), or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await Promise.resolve().then(check).catch(() => false))) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The workflow's own failure, its type and message (Temporal wraps it in WorkflowFailedError.cause). */
export async function workflowFailureOf(p: Promise<unknown>): Promise<{ type: string | undefined; message: string }> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause as (Error & { type?: string }) | undefined;
    return { type: cause?.type, message: cause?.message ?? '' };
  }
  throw new Error('expected the workflow to fail');
}

/** The workflow's own failure message. */
export async function failureOf(p: Promise<unknown>): Promise<string> {
  return (await workflowFailureOf(p)).message;
}
