/** What a fault that misbehaves for some builds is scoped by: one workspace, one transition, a count. */
export interface BuildScopedFault {
  workspaceId?: string;
  transition?: string;
  /** How many matching builds it applies to; unlimited when absent. */
  times?: number;
}

/** True when the fault applies to this build; counts it down. */
export function takeBuildScopedFault<F extends BuildScopedFault>(fault: F | undefined, build: { workspaceId: string; transition: string }): fault is F {
  if (!fault) return false;
  if (fault.workspaceId !== undefined && fault.workspaceId !== build.workspaceId) return false;
  if (fault.transition !== undefined && fault.transition !== build.transition) return false;
  if (fault.times !== undefined) {
    if (fault.times <= 0) return false;
    fault.times -= 1;
  }
  return true;
}
