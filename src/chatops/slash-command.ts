/** `/wsmigrate approvals | status ID | approve ID | reject ID [reason]`, parsed. */
export type SlashCommand =
  | { kind: 'approvals' }
  | { kind: 'status'; workflowId: string }
  | { kind: 'approve'; workflowId: string }
  | { kind: 'reject'; workflowId: string; reason?: string }
  | { kind: 'help'; problem?: string };

export const SLASH_USAGE = 'Usage: `/wsmigrate approvals` | `/wsmigrate status <workflow-id>` | `/wsmigrate approve <workflow-id>` | `/wsmigrate reject <workflow-id> [reason]`';

export function parseSlashCommand(text: string): SlashCommand {
  const words = text.trim().split(/\s+/).filter((w) => w.length > 0);
  const [verb, id, ...rest] = words;
  if (!verb || verb === 'help') return { kind: 'help' };
  if (verb === 'approvals') return { kind: 'approvals' };
  if (verb === 'status' || verb === 'approve' || verb === 'reject') {
    if (!id) return { kind: 'help', problem: `'${verb}' needs a workflow id, e.g. /wsmigrate ${verb} wsmigrate/k8s-dev/alice/dev` };
    if (verb === 'reject') return { kind: 'reject', workflowId: id, ...(rest.length ? { reason: rest.join(' ').slice(0, 500) } : {}) };
    if (rest.length) return { kind: 'help', problem: `'${verb}' takes only a workflow id (got extra words: ${rest.join(' ')})` };
    return { kind: verb, workflowId: id };
  }
  return { kind: 'help', problem: `unknown subcommand '${verb}'` };
}
