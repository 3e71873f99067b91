import type { Plan, PlannedChange } from './build-plan';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** One line of a provisioner job's log, before the server gives it an id and a timestamp. */
export interface LogLine {
  level: LogLevel;
  stage: string;
  source: 'provisioner_daemon' | 'provisioner';
  output: string;
}

export function stageLine(stage: string): LogLine {
  return { level: 'info', stage, source: 'provisioner_daemon', output: '' };
}

export function tfLine(stage: string, output: string, level: LogLevel = 'info'): LogLine {
  return { level, stage, source: 'provisioner', output };
}

function typeAndName(change: PlannedChange): { type: string; name: string } {
  return 'stateResource' in change ? change.stateResource : change.config;
}

function idOf(change: PlannedChange): string | undefined {
  const id = 'instance' in change ? change.instance.attributes.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  forget: number;
}

export function summarize(plan: Plan): PlanSummary {
  const summary = { add: 0, change: 0, destroy: 0, forget: 0 };
  for (const c of plan.changes) {
    if (c.action === 'create') summary.add++;
    else if (c.action === 'destroy') summary.destroy++;
    else if (c.action === 'forget') summary.forget++;
    else if (c.action === 'replace') {
      summary.add++;
      summary.destroy++;
    }
  }
  return summary;
}

/** The human-readable plan Terraform prints, reduced to the lines an operator scans for. */
export function renderPlan(plan: Plan, stage: string): LogLine[] {
  const lines: LogLine[] = [];
  const visible = plan.changes.filter((c) => c.action !== 'keep');
  if (visible.length === 0) {
    lines.push(tfLine(stage, 'No changes. Your infrastructure matches the configuration.'));
    return lines;
  }
  lines.push(tfLine(stage, 'Terraform will perform the following actions:'));
  for (const change of visible) {
    const { type, name } = typeAndName(change);
    const id = idOf(change);
    switch (change.action) {
      case 'create':
        lines.push(tfLine(stage, `  # ${change.address} will be created`));
        lines.push(tfLine(stage, `  + resource "${type}" "${name}" {`));
        break;
      case 'replace':
        lines.push(tfLine(stage, `  # ${change.address} must be replaced`, 'warn'));
        lines.push(tfLine(stage, `-/+ resource "${type}" "${name}" {`));
        lines.push(tfLine(stage, '      ~ metadata { # forces replacement', 'warn'));
        break;
      case 'destroy':
        lines.push(tfLine(stage, `  # ${change.address} will be destroyed`, 'warn'));
        if (change.reason === 'delete_because_no_resource_config') {
          lines.push(tfLine(stage, `  # (because ${change.stateResource.type}.${change.stateResource.name} is not in configuration)`));
        } else if (change.reason === 'delete_because_count_index') {
          lines.push(tfLine(stage, `  # (because index ${change.address.slice(change.address.indexOf('['))} is out of range for count)`));
        }
        lines.push(tfLine(stage, `  - resource "${type}" "${name}" {`));
        break;
      case 'forget':
        lines.push(tfLine(stage, `  # ${change.address} will no longer be managed by Terraform`));
        lines.push(tfLine(stage, ` . resource "${type}" "${name}" {`));
        break;
    }
    if (id !== undefined) lines.push(tfLine(stage, `      id = "${id}"`));
    lines.push(tfLine(stage, '    }'));
  }
  const s = summarize(plan);
  lines.push(tfLine(stage, `Plan: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy${s.forget ? `, ${s.forget} to forget` : ''}.`));
  return lines;
}
