import type { ActivityDeps, MessageRef, Notification } from './ports';

export interface NotifyResult {
  delivered: boolean;
  error?: string;
  /** Messages a backend posted and may update later; the workflow hands them back on the gate's next notification. */
  messageRefs?: MessageRef[];
}

/** Tells humans about approvals and outcomes. A failed notification must not fail a migration. */
export function makeNotify({ notifier }: ActivityDeps) {
  return async function notify(n: Notification): Promise<NotifyResult> {
    try {
      const outcome = await notifier.notify(n);
      return { delivered: true, ...(outcome?.messageRefs?.length ? { messageRefs: outcome.messageRefs } : {}) };
    } catch (err) {
      return { delivered: false, error: (err as Error).message.slice(0, 200) };
    }
  };
}
