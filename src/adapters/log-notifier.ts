import type { Notification, Notifier } from '../activities/ports';

/** Writes each notification as one JSON line; the default until a chat or webhook notifier is configured. */
export function createLogNotifier(write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Notifier {
  return {
    async notify(n: Notification) {
      write(JSON.stringify({ at: new Date().toISOString(), notification: n.kind, workflowId: n.workflowId, subject: n.subject, text: n.text, gateId: n.gateId, planHash: n.planHash }));
    },
  };
}
