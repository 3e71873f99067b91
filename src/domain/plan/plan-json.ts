import { z } from 'zod';
import { AddressError, parseResourceAddress } from './address';
import type { PlannedAction, PlannedChange } from './planned-change';

/** The input was not a plan we can read; the message names the source and what is wrong. */
export class PlanInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanInputError';
  }
}

// An action this reader doesn't know fails the whole read: a guard must not wave through what it cannot see.
const actionSchema = z.enum(['no-op', 'create', 'read', 'update', 'delete', 'forget']);
const indexSchema = z.union([z.number(), z.string()]);

const resourceChangeSchema = z.looseObject({
  address: z.string(),
  previous_address: z.string().optional(),
  module_address: z.string().optional(),
  mode: z.enum(['managed', 'data']),
  type: z.string(),
  name: z.string(),
  index: indexSchema.nullish(),
  deposed: z.string().optional(),
  action_reason: z.string().optional(),
  change: z.looseObject({
    actions: z.array(actionSchema).min(1),
    replace_paths: z.array(z.unknown()).optional(),
  }),
});

/** The subset of `terraform show -json PLANFILE` (format 1.x) that the guard reads; the rest passes through. */
export const showJsonPlanSchema = z.looseObject({
  format_version: z.string(),
  resource_changes: z.array(resourceChangeSchema).optional(),
});

const streamedResourceSchema = z.looseObject({
  addr: z.string(),
  module: z.string().optional(),
  resource_type: z.string(),
  resource_name: z.string(),
  resource_key: indexSchema.nullish(),
});

/** One `planned_change` line of `terraform plan -json`. */
const plannedChangeLineSchema = z.looseObject({
  type: z.literal('planned_change'),
  change: z.looseObject({
    resource: streamedResourceSchema,
    previous_resource: streamedResourceSchema.optional(),
    action: z.enum(['noop', 'create', 'read', 'update', 'replace', 'delete', 'move', 'import', 'remove']),
    reason: z.string().optional(),
  }),
});

// The streamed UI names actions differently and folds both replace orders into one word.
const STREAMED_ACTIONS: Record<z.infer<typeof plannedChangeLineSchema>['change']['action'], PlannedAction[]> = {
  noop: ['no-op'],
  create: ['create'],
  read: ['read'],
  update: ['update'],
  replace: ['delete', 'create'],
  delete: ['delete'],
  move: ['no-op'],
  import: ['no-op'],
  remove: ['forget'],
};

function describeIssues(error: z.ZodError, locate: (path: PropertyKey[]) => string): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${locate(issue.path)}: ${issue.message}`)
    .join('; ');
}

function pathText(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the parsed output of `terraform show -json PLANFILE`. `source` names the input in errors. */
export function plannedChangesFromShowJson(json: unknown, source: string): PlannedChange[] {
  if (!isObject(json)) throw new PlanInputError(`${source}: not a plan: expected a JSON object from 'terraform show -json PLANFILE'`);
  if (json.format_version === undefined) {
    const looksLikeState = 'lineage' in json || ('version' in json && 'resources' in json);
    throw new PlanInputError(
      looksLikeState
        ? `${source}: this is a Terraform state, not a plan. Run 'terraform plan -out=PLANFILE' then 'terraform show -json PLANFILE'.`
        : `${source}: not a plan: no "format_version". Produce it with 'terraform show -json PLANFILE' (or 'terraform plan -json').`,
    );
  }
  const parsed = showJsonPlanSchema.safeParse(json);
  if (!parsed.success) {
    const changes = Array.isArray(json.resource_changes) ? json.resource_changes : [];
    throw new PlanInputError(
      `${source}: not a readable plan: ${describeIssues(parsed.error, (path) => {
        const at = pathText(path);
        const entry = path[0] === 'resource_changes' && typeof path[1] === 'number' ? changes[path[1]] : undefined;
        const address = isObject(entry) && typeof entry.address === 'string' ? ` (${entry.address})` : '';
        return `${at}${address}`;
      })}`,
    );
  }
  const plan = parsed.data;
  if (!/^1\.\d+$/.test(plan.format_version)) {
    throw new PlanInputError(
      `${source}: plan format_version "${plan.format_version}" is not 1.x; wsmigrate reads the 1.x plan format of Terraform 1.x. ` +
        'Re-create the JSON with a Terraform 1.x binary.',
    );
  }
  return (plan.resource_changes ?? []).map((rc): PlannedChange => {
    const module = rc.module_address;
    return {
      address: rc.address,
      ...(rc.previous_address ? { previousAddress: rc.previous_address } : {}),
      ...(module ? { module } : {}),
      mode: rc.mode,
      type: rc.type,
      name: rc.name,
      ...(rc.index === undefined || rc.index === null ? {} : { index: rc.index }),
      ...(rc.deposed ? { deposed: rc.deposed } : {}),
      actions: [...rc.change.actions],
      ...(rc.action_reason ? { reason: rc.action_reason } : {}),
      ...(rc.change.replace_paths ? { replacePaths: rc.change.replace_paths } : {}),
    };
  });
}

/**
 * Reads the line-streamed `terraform plan -json` output. Only `planned_change` lines matter; other
 * message types and non-JSON lines (warnings that leaked into the capture) are skipped. The stream
 * never lists no-ops, so a structural no-op cannot be told from an absent resource here.
 */
export function plannedChangesFromStream(text: string, source: string): PlannedChange[] {
  const changes: PlannedChange[] = [];
  let uiLines = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith('{')) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (!isObject(value) || typeof value.type !== 'string') return;
    uiLines += 1;
    if (value.type !== 'planned_change') return;
    const parsed = plannedChangeLineSchema.safeParse(value);
    if (!parsed.success) {
      throw new PlanInputError(`${source}:${i + 1}: unreadable planned_change: ${describeIssues(parsed.error, pathText)}`);
    }
    changes.push(streamedChange(parsed.data, `${source}:${i + 1}`));
  });
  if (uiLines === 0) {
    throw new PlanInputError(
      `${source}: not a plan: neither a 'terraform show -json PLANFILE' document nor 'terraform plan -json' lines`,
    );
  }
  return changes;
}

function streamedChange(line: z.infer<typeof plannedChangeLineSchema>, where: string): PlannedChange {
  const { resource, previous_resource: previous, action, reason } = line.change;
  let mode: PlannedChange['mode'];
  try {
    // The streamed resource has no mode field; the address says it (`data.` prefix).
    mode = parseResourceAddress(resource.addr).mode;
  } catch (error) {
    if (error instanceof AddressError) throw new PlanInputError(`${where}: ${error.message}`);
    throw error;
  }
  const key = resource.resource_key;
  return {
    address: resource.addr,
    ...(previous && previous.addr !== resource.addr ? { previousAddress: previous.addr } : {}),
    ...(resource.module ? { module: resource.module } : {}),
    mode,
    type: resource.resource_type,
    name: resource.resource_name,
    ...(key === undefined || key === null ? {} : { index: key }),
    actions: [...STREAMED_ACTIONS[action]],
    ...(reason ? { reason } : {}),
  };
}

/**
 * Reads either plan format from text. `terraform show -json` prints one JSON document (on one
 * line), so a text that parses as a whole is the show format unless it is itself a UI line.
 */
export function plannedChangesFromText(text: string, source: string): PlannedChange[] {
  if (text.trim() === '') throw new PlanInputError(`${source}: empty file: expected a plan in JSON`);
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    if (!/^\s*\{/m.test(text)) {
      throw new PlanInputError(`${source}: not JSON: expected 'terraform show -json PLANFILE' or 'terraform plan -json' output`);
    }
    return plannedChangesFromStream(text, source);
  }
  if (isObject(whole) && typeof whole.type === 'string' && typeof whole['@message'] === 'string') {
    return plannedChangesFromStream(text, source);
  }
  return plannedChangesFromShowJson(whole, source);
}
