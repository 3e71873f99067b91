import { ApplicationFailure, proxyActivities, upsertMemo } from '@temporalio/workflow';
import { FailureType } from '../domain/failure-types';
import type { WsmigrateActivities } from '../activities';
import { migrateWorkspaceInputSchema, type MigrateWorkspaceInput } from '../domain/migration-input';
import { parseWorkflowInput } from './workflow-input';
import { QUICK_STEP, buildStepOptions, durationMs, withActivityMessage } from './activity-presets';
import { reportingToFleet } from './fleet-report';
import type { ZeroTouchWorkspaceResult } from '../contracts/zero-touch-workspace';
import { waitWhileBusy } from './wait-while-busy';

/**
 * One workspace of a zero-touch fleet: no state push, no stop. The zero-touch version (promoted by
 * the template step) imports the live objects at the workspace's next build; for a running
 * workspace that build is a start pinned to it, followed by the health check (every PVC/PV kept
 * its uid, no deprecated type left). A stopped one is left to migrate itself at its next start.
 */
export async function zeroTouchWorkspace(rawInput: MigrateWorkspaceInput): Promise<ZeroTouchWorkspaceResult> {
  return reportingToFleet(rawInput, () => steps(rawInput));
}

function needsAttention(message: string): ApplicationFailure {
  upsertMemo({ outcome: 'needs-attention' });
  return ApplicationFailure.create({ message, type: FailureType.needsAttention, nonRetryable: true });
}

async function steps(rawInput: MigrateWorkspaceInput): Promise<ZeroTouchWorkspaceResult> {
  const input = parseWorkflowInput(migrateWorkspaceInputSchema, rawInput);
  const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);
  const buildTimeoutMs = durationMs(input.buildTimeout);
  // The same build step as migrateWorkspace's, heartbeat timeout (the input's) included.
  const builds = proxyActivities<WsmigrateActivities>(buildStepOptions(input));
  const subject = `${input.owner}/${input.workspace}`;

  const pf = await acts.preflightWorkspace.executeWithOptions({ summary: `preflight ${subject}` }, [
    { owner: input.owner, workspace: input.workspace, template: input.template, targetVersionId: input.targetVersionId, strategy: input.strategy, allowInactiveVersion: input.allowInactiveVersion || input.dryRun },
  ]);
  const warned = pf.inactiveTarget ? [pf.inactiveTarget] : [];
  if (pf.alreadyMigrated) {
    // No deprecated type left is not proof: a failed build that forgot its PVC leaves none either.
    // Only a healthy workspace counts as migrated (DESIGN invariant 6); an unmigrated one (its
    // _v1 state built on another version) takes the pinned start below.
    const assess = () =>
      acts.assessHealth.executeWithOptions({ summary: `health of ${subject}: its builds and states` }, [{ workspaceId: pf.workspaceId, subject, targetVersionId: input.targetVersionId }]);
    const { health } = await waitWhileBusy(subject, { health: await assess() }, async () => ({ health: await assess() }));
    if (health.health === 'migrated') {
      upsertMemo({ outcome: 'already-migrated' });
      return { outcome: 'already-migrated', workspaceId: pf.workspaceId, warnings: [] };
    }
    if (health.health === 'damaged') {
      throw needsAttention(
        `${subject} is damaged, not migrated: ${health.reason}. Recover it with: wsmigrate recover ${subject} --template ${input.template} --version ${input.targetVersionId}`,
      );
    }
    if (health.health === 'busy' || health.health === 'unreadable') {
      throw ApplicationFailure.create({ message: `preflight: ${subject} is ${health.health}: ${health.reason}`, type: health.health === 'busy' ? FailureType.busy : FailureType.refused });
    }
  }
  if (pf.prior.transition !== 'start') {
    upsertMemo({ outcome: 'waiting-for-build' });
    const dormant = pf.dormantSince
      ? [
          `${subject} is dormant (since ${pf.dormantSince}): Coder starts it for nobody until it is made active, so it will not migrate itself: ${pf.dormantAction ?? 'its owner or an admin makes it active'} (its next start then migrates it)`,
        ]
      : [];
    return { outcome: 'waiting-for-build', workspaceId: pf.workspaceId, warnings: [...warned, ...dormant] };
  }
  if (input.dryRun) {
    return { outcome: 'waiting-for-build', workspaceId: pf.workspaceId, warnings: [...warned, 'dry run: the pinned start was not run'] };
  }
  // The backup is the health check's "before": the uids every PVC/PV must keep.
  const backup = await acts.backupState.executeWithOptions({ summary: `back up the state of ${subject}` }, [{ workspaceId: pf.workspaceId, subject }]);
  const start = await builds.startPinned.executeWithOptions({ summary: `start ${subject} pinned to the zero-touch version ${pf.targetVersionName}` }, [
    { workspaceId: pf.workspaceId, subject, templateVersionId: input.targetVersionId, afterBuildNumber: backup.buildNumber, timeoutMs: buildTimeoutMs },
  ]);
  const check = await acts.postBuildCheck
    .executeWithOptions({ summary: 'check every PVC/PV kept its uid; no deprecated type left' }, [{ subject, buildId: start.buildId, backupRef: backup.blob.ref }])
    .catch((err: unknown) => {
      // A volume lost or replaced by the start: no restore brings it back, so a human must look.
      const failure = withActivityMessage(err);
      if (failure instanceof ApplicationFailure && failure.type === FailureType.dataLoss) throw needsAttention(`${subject}: the zero-touch start lost data: ${failure.message}`);
      throw failure;
    });
  upsertMemo({ outcome: 'migrated', zeroTouch: true });
  return { outcome: 'migrated', workspaceId: pf.workspaceId, startBuildId: start.buildId, pvcUidsKept: check.persistentChecked, warnings: [...warned, ...check.warnings] };
}
