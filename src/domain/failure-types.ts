/**
 * Every failure type wsmigrate throws, one list: activities throw the first ones, workflows end with
 * the last ones, and the fleet, the client and the CLI read them (contracts/failures re-exports it).
 */
export const FailureType = {
  refused: 'WsmigrateRefused', // a precondition says no: never retry, never proceed
  // Coder marked the workspace dormant: nobody may start it until its owner or an admin makes it active (a fleet counts it skipped)
  dormant: 'WsmigrateDormant',
  conflict: 'WsmigrateStateConflict', // state is neither what we backed up nor what we wrote
  buildFailed: 'WsmigrateBuildFailed',
  busy: 'WsmigrateWorkspaceBusy', // a build is running: retry later
  dataLoss: 'WsmigrateDataLoss',
  // someone (an owner, Coder's autostart/autostop) built the workspace after the build we read: never write over it; start over
  builtMeanwhile: 'WsmigrateBuiltMeanwhile',
  blobUnavailable: 'WsmigrateBlobUnavailable', // store down or blob not (yet) found: retried a few times, then final
  blobUnreadable: 'WsmigrateBlobUnreadable', // corrupt, tampered or wrong key: final
  blobStoreAccess: 'WsmigrateBlobStoreAccess', // credentials or permissions: final
  unknownName: 'WsmigrateUnknownName', // a template, owner or workspace named by the user that Coder does not know: a typo, never retried
  // how a workflow ends when it did not migrate
  invalidInput: 'WsmigrateInvalidInput', // the workflow's input failed its checks: nothing was read or written
  rejected: 'WsmigrateRejected', // a person rejected a gate (or nobody answered it in time)
  guardDenied: 'WsmigrateGuardDenied', // the plan guard refused the migrated state
  rolledBack: 'WsmigrateRolledBack', // the migration failed and the backed-up state and transition were restored
  needsAttention: 'WsmigrateNeedsAttention', // neither migrated nor restored: a person must look (never retried)
} as const;

export type WsmigrateFailureType = (typeof FailureType)[keyof typeof FailureType];

export const FINAL_FAILURE_TYPES: string[] = [FailureType.refused, FailureType.dormant, FailureType.conflict, FailureType.buildFailed, FailureType.dataLoss, FailureType.builtMeanwhile, FailureType.unknownName];
