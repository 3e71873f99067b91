import type { ResourceMode } from '../type-map';
import type { InstanceKey } from './address';

/** The actions Terraform's plan JSON uses (`change.actions`); a replace is two of them. */
export type PlannedAction = 'no-op' | 'create' | 'read' | 'update' | 'delete' | 'forget';

/**
 * One resource instance in a plan, whatever produced it: `terraform show -json`, the streamed
 * `terraform plan -json`, or the structural planner.
 */
export interface PlannedChange {
  address: string;
  previousAddress?: string;
  /** Module instance path as Terraform prints it (`module.app[0]`); absent at the root. */
  module?: string;
  mode: ResourceMode;
  type: string;
  name: string;
  index?: InstanceKey;
  deposed?: string;
  actions: PlannedAction[];
  /** Terraform's `action_reason` (or the streamed `reason`), kept verbatim: unknown codes are tolerated. */
  reason?: string;
  replacePaths?: unknown[];
  /** Set by the structural planner when it had to guess (e.g. unknown for_each keys), saying what it assumed. */
  assumed?: string;
}
