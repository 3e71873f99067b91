import type { MessageRef, Notification, Notifier, NotifyOutcome } from '../../ports/notifier';
import { redactSecrets, type Secret } from '../../config/secret';

export interface NamedNotifier {
  name: string;
  notifier: Notifier;
}

export interface FanOutOptions {
  /** Where a backend's failure is written (one JSON line). */
  log: (line: string) => void;
  /** Redacted from any failure text before it is logged. */
  secrets?: (Secret | undefined)[];
}

/**
 * Sends each notification to every backend at once. A backend that fails (after its own retry
 * budget) is logged and skipped: a notifier that is down never fails or blocks a migration.
 */
export function createFanOutNotifier(backends: NamedNotifier[], opts: FanOutOptions): Notifier {
  return {
    async notify(n: Notification): Promise<NotifyOutcome> {
      const results = await Promise.allSettled(backends.map((b) => b.notifier.notify(n)));
      const refs: MessageRef[] = [];
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          refs.push(...(r.value?.messageRefs ?? []));
          return;
        }
        const error = redactSecrets(String((r.reason as Error)?.message ?? r.reason), opts.secrets ?? []).slice(0, 300);
        opts.log(JSON.stringify({ at: new Date().toISOString(), level: 'warn', msg: 'notification not delivered', backend: backends[i].name, notification: n.kind, workflowId: n.workflowId, error }));
      });
      // Refs posted earlier by a backend that failed now are kept, so a later update can still find them.
      for (const old of n.messageRefs ?? []) if (!refs.some((r) => r.backend === old.backend && r.ts === old.ts)) refs.push(old);
      return { messageRefs: refs };
    },
  };
}
