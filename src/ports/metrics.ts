/** Change kinds wsmigrate watches for in the builds it triggers (seed 003: resource replacements). */
export type ObservedChangeKind = 'replace' | 'destroy' | 'type-rename-delete';

/**
 * What activities count for Prometheus (workflows cannot: they replay). The worker passes the
 * prom-client implementation; tests may pass nothing.
 */
export interface MigrationMetrics {
  workspaceFinished(outcome: 'migrated' | 'restored' | 'needs-attention'): void;
  approvalDecided(gate: string, decision: 'approve' | 'reject' | 'timed-out', seconds: number): void;
  resourceChangeSeen(kind: ObservedChangeKind, template: string, resourceType: string): void;
  deleteBlocked(step: string): void;
  damagedWorkspaceFound(reason: string): void;
  /** What Coder read back after the fleet asked it to require the template's active version: held or not. */
  activeVersionLockRead(template: string, held: boolean): void;
  /** A fleet's paced window and whether it holds new starts for the provisioners (optional: older recorders). */
  fleetPacing?(template: string, width: number, holding: boolean): void;
}
