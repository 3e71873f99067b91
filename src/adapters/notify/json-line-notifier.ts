import type { Notification, Notifier } from '../../ports/notifier';

/** Writes each notification as one JSON line; always on, so every notification leaves a trace. */
export function createJsonLineNotifier(write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Notifier {
  return {
    async notify(n: Notification) {
      write(
        JSON.stringify({
          at: new Date().toISOString(),
          notification: n.kind,
          workflowId: n.workflowId,
          subject: n.subject,
          text: n.text,
          gateId: n.gateId,
          planHash: n.planHash,
          ...(n.decision ? { decision: n.decision } : {}),
          ...(n.counts ? { counts: n.counts } : {}),
        }),
      );
    },
  };
}
