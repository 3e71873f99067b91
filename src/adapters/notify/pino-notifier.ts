import type { Logger } from 'pino';
import type { Notification, Notifier } from '../../ports/notifier';
import { contextOfWorkflowId } from '../logging/logger';

/** Notifications as log lines, with the workflow's context, until a chat or webhook notifier is configured. */
export function createPinoNotifier(logger: Logger): Notifier {
  return {
    async notify(n: Notification) {
      logger.info(
        { ...contextOfWorkflowId(n.workflowId), step: 'notify', notification: n.kind, subject: n.subject, gateId: n.gateId, planHash: n.planHash, ...(n.approvers ? { approvers: n.approvers } : {}) },
        n.text,
      );
    },
  };
}
