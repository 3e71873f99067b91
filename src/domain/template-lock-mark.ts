/**
 * The text of wsmigrate's mark that it, not the operator, switched a template's
 * require_active_version on: stored as a blob, so its content address names the template and any
 * worker, any later run and `fleet status` find it without a list.
 */
export function templateLockMarkText(templateId: string): string {
  return `wsmigrate template-lock v1: require_active_version was switched on by wsmigrate for template ${templateId}\n`;
}
