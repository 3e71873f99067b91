/** A fleet window's question as it starts: which other fleets or organization runs migrate its template now. */
export interface OtherRunsQuery {
  organization: string;
  template: string;
  /** The window's task queue: an organization's `all` reaches only runs on its own queue. */
  taskQueue: string;
  /** The asking fleet, and its parent (an organization window): neither, nor their fleets, counts. */
  workflowId: string;
  parentId?: string;
}

export interface OtherRun {
  /** The run a person acts on: an organization run rather than the template fleet it started. */
  workflowId: string;
  byHand: boolean;
}

/** Asks Temporal (visibility, and the ids a person starts by hand, described one by one). */
export type OtherRuns = (q: OtherRunsQuery) => Promise<OtherRun[]>;
