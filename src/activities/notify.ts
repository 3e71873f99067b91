import type { ActivityDeps, Notification } from './ports';

/** Tells humans about approvals and outcomes. A failed notification must not fail a migration. */
export function makeNotify({ notifier }: ActivityDeps) {
  return async function notify(n: Notification): Promise<{ delivered: boolean; error?: string }> {
    try {
      await notifier.notify(n);
      return { delivered: true };
    } catch (err) {
      return { delivered: false, error: (err as Error).message.slice(0, 200) };
    }
  };
}
