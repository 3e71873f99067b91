import { z } from 'zod';

/** The structural view of a v4 state that planning needs; any parsed v4 state satisfies it. */
export interface StateResourceView {
  module?: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  instances: { index_key?: number | string; deposed?: string }[];
}

export class StateInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateInputError';
  }
}

const stateSchema = z.looseObject({
  version: z.literal(4),
  resources: z.array(
    z.looseObject({
      module: z.string().optional(),
      mode: z.enum(['managed', 'data']),
      type: z.string(),
      name: z.string(),
      instances: z.array(
        z.looseObject({
          index_key: z.union([z.number(), z.string()]).optional(),
          deposed: z.string().optional(),
        }),
      ),
    }),
  ),
});

/**
 * Reads the resources of a parsed v4 state file. Attributes are left out on purpose: they hold
 * secrets, and nothing structural depends on them. Errors name the field, never a value.
 */
export function stateResourceViews(json: unknown, source: string): StateResourceView[] {
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
    throw new StateInputError(
      `${source}: not a Terraform v4 state: ${at === '' ? '' : `${at}: `}${issue.message}. ` +
        "Pass the file from 'coder state pull' or 'terraform state pull'.",
    );
  }
  return parsed.data.resources.map((r) => ({
    ...(r.module ? { module: r.module } : {}),
    mode: r.mode,
    type: r.type,
    name: r.name,
    instances: r.instances.map((i) => ({
      ...(i.index_key === undefined ? {} : { index_key: i.index_key }),
      ...(i.deposed === undefined ? {} : { deposed: i.deposed }),
    })),
  }));
}
