/** The Approve / Reject buttons of a chat message: their action ids and what they carry back. Shared by the Slack notifier and chatops. */

export const APPROVE_ACTION = 'wsmigrate_approve';
export const REJECT_ACTION = 'wsmigrate_reject';

/** What a button carries back: exactly the workflow, gate and plan the human saw. */
export interface ButtonValue {
  workflowId: string;
  gateId: string;
  planHash: string;
}

export function encodeButtonValue(v: ButtonValue): string {
  return JSON.stringify({ w: v.workflowId, g: v.gateId, p: v.planHash });
}

export function decodeButtonValue(raw: unknown): ButtonValue | undefined {
  if (typeof raw !== 'string' || raw.length > 2000) return undefined;
  try {
    const v = JSON.parse(raw) as { w?: unknown; g?: unknown; p?: unknown };
    if (typeof v.w === 'string' && typeof v.g === 'string' && typeof v.p === 'string') return { workflowId: v.w, gateId: v.g, planHash: v.p };
  } catch {
    // fall through
  }
  return undefined;
}
