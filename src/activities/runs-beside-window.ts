import type { ActivityDeps, OtherRun, OtherRunsQuery } from './ports';

/**
 * A schedule's window, as its fleet starts: the other fleets and organization runs that migrate its
 * template now. `wsmigrate schedule trigger`/`unpause` refuse beside one, but `temporal schedule
 * trigger` and `toggle --unpause` ask nobody, and Temporal runs a trigger of a paused schedule.
 */
export function makeRunsBesideWindow(deps: ActivityDeps) {
  return async function runsBesideWindow(q: OtherRunsQuery): Promise<OtherRun[]> {
    return deps.otherRuns ? deps.otherRuns(q) : [];
  };
}
