import { z } from 'zod';

/**
 * Terraform state format version 4 (Terraform 0.12 and later). Every object is loose: fields this
 * tool does not know (`identity`, `private`, `check_results` details, fields of future Terraform
 * releases) are kept, because Terraform drops what an older reader does not know and a lost
 * `identity` or `private` blob changes what the provider sees on the next plan.
 * Only what the migration reads is required; the rest is typed loosely where Terraform's own
 * reader accepts `null`.
 */

export const StateIndexKeySchema = z.union([z.number(), z.string()]);

/** Any JSON object, checked without walking its members: attribute blobs are most of a state's bytes. */
const jsonObject = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'expected a JSON object');

export const StateInstanceV4Schema = z.looseObject({
  index_key: StateIndexKeySchema.optional(),
  status: z.string().optional(),
  deposed: z.string().optional(),
  schema_version: z.number().int().nonnegative().optional(),
  attributes: jsonObject.nullish(),
  attributes_flat: z.record(z.string(), z.string()).nullish(),
  sensitive_attributes: z.array(z.unknown()).nullish(),
  identity_schema_version: z.number().int().nonnegative().optional(),
  identity: z.unknown().optional(),
  private: z.string().nullish(),
  dependencies: z.array(z.string()).nullish(),
  create_before_destroy: z.boolean().optional(),
});

export const StateResourceV4Schema = z.looseObject({
  module: z.string().optional(),
  mode: z.enum(['managed', 'data']),
  type: z.string().min(1),
  name: z.string().min(1),
  each: z.string().optional(),
  provider: z.string().optional(),
  instances: z.array(StateInstanceV4Schema),
});

export const CheckResultObjectV4Schema = z.looseObject({
  object_addr: z.string(),
  status: z.string().optional(),
  failure_messages: z.array(z.string()).nullish(),
});

export const CheckResultV4Schema = z.looseObject({
  object_kind: z.string(),
  config_addr: z.string(),
  status: z.string().optional(),
  objects: z.array(CheckResultObjectV4Schema).nullish(),
});

export const StateV4Schema = z.looseObject({
  version: z.literal(4),
  terraform_version: z.string().optional(),
  // A uint64: zod's int() stops at 2^53, and the exact value is taken from the text when it matters.
  serial: z.number().nonnegative().refine(Number.isInteger, 'expected a whole number'),
  lineage: z.string(),
  outputs: jsonObject.nullish(),
  resources: z.array(StateResourceV4Schema),
  check_results: z.array(CheckResultV4Schema).nullish(),
});

export type StateIndexKey = z.infer<typeof StateIndexKeySchema>;
export type StateInstanceV4 = z.infer<typeof StateInstanceV4Schema>;
export type StateResourceV4 = z.infer<typeof StateResourceV4Schema>;
export type CheckResultV4 = z.infer<typeof CheckResultV4Schema>;
export type StateV4 = z.infer<typeof StateV4Schema>;
