/** Failure types shared by activities (which throw them) and workflows (which must not retry them). */
export const FailureType = {
  refused: 'WsmigrateRefused', // a precondition says no: never retry, never proceed
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
} as const;

export const FINAL_FAILURE_TYPES: string[] = [FailureType.refused, FailureType.conflict, FailureType.buildFailed, FailureType.dataLoss, FailureType.builtMeanwhile, FailureType.unknownName];
