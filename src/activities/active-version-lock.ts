import { formatBlobRef } from '../domain/blob-ref';
import { templateLockMarkText } from '../domain/template-lock-mark';
import type { ActiveVersionCheck, ActiveVersionLock, ActiveVersionRelease } from '../contracts/migrate-fleet';
import { isCoderApiError } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';

/**
 * The marker that wsmigrate, not the operator, switched the setting on: a blob whose bytes name the
 * template, so any worker finds it by its content address and a later batch (another workflow) can
 * tell whose setting it is: one whose give-back never happened (a terminated run) is given back by the worker's lock keeper (src/worker/lock-keeper.ts) or the next run's end.
 */
function markerBytes(templateId: string): Buffer {
  return Buffer.from(templateLockMarkText(templateId));
}

function markMeta(input: { organization: string; template: string; workflowId: string }) {
  return { kind: 'template-lock', label: `${input.organization}/${input.template}`, workflowId: input.workflowId };
}

/** What the give-back needs: the worker's lock keeper calls it too, outside any activity. */
type LockDeps = Pick<ActivityDeps, 'coder' | 'blobs'>;

async function templateOf(deps: LockDeps, organization: string, template: string) {
  return coderStep('active-version lock', `template ${organization}/${template}`, () => deps.coder.templateByName(organization, template));
}

export function makeRequireActiveVersion(deps: ActivityDeps) {
  return async function requireActiveVersion(input: { organization: string; template: string; workflowId: string; targetVersionId?: string }): Promise<ActiveVersionLock> {
    const t = await templateOf(deps, input.organization, input.template);
    // coderd/autobuild/lifecycle_executor.go useActiveVersion: with the setting on, autostart (and a member's start) builds the
    // *active* version. Unless that is the fleet's target, it would build an old version on every migrated workspace.
    if (input.targetVersionId && t.active_version_id !== input.targetVersionId && !t.require_active_version) {
      return {
        state: 'declined',
        reason: `the fleet's target version ${input.targetVersionId} is not the template's active version (${t.active_version_id}): with the setting on, Coder's autostart and members' starts would build the active, old version on migrated workspaces and destroy their PVCs. Promote the target version first (then a later run switches it on)`,
      };
    }
    // The fleet's first change: a token that may not run the whole migration is refused before it.
    await refuseUnlessTokenMayMigrate(deps.coder, `template ${input.organization}/${input.template}`, {
      organizationId: t.organization_id,
      organization: input.organization,
      templateId: t.id,
      template: input.template,
    });
    const marker = markerBytes(t.id);
    if (t.require_active_version) {
      const byWsmigrate = await deps.blobs.has(formatBlobRef(deps.blobs.location, sha256Hex(marker)));
      // The mark names this run too (a record of its own beside the earlier run's): the worker's lock
      // keeper, which gives back a mark whose runs have all ended, sees that this one runs.
      if (byWsmigrate) await deps.blobs.put(marker, markMeta(input));
      return { state: 'already-on', byWsmigrate };
    }
    // The marker first: a crash between the two leaves a marker for a setting that is off, which the
    // release handles; the other order could leave the operator's template locked with nobody to unlock it.
    await deps.blobs.put(marker, markMeta(input));
    try {
      await deps.coder.setTemplateRequireActiveVersion(t.id, true);
    } catch (err) {
      // Coder answers the unlicensed case with a 500 (which the client has retried already).
      if (isCoderApiError(err) && (!err.retryable || err.status === 500)) {
        await deps.blobs.remove(sha256Hex(marker));
        return { state: 'refused', reason: err.message };
      }
      throw err;
    }
    // Read it back: an AGPL Coder answers 200 and ignores it.
    const after = await templateOf(deps, input.organization, input.template);
    if (!after.require_active_version) {
      await deps.blobs.remove(sha256Hex(marker));
      return {
        state: 'not-held',
        reason:
          'Coder accepted require_active_version but reads it back as false: it is ignored without a Premium licence (or with an expired one), so nothing holds members to the active version',
      };
    }
    return { state: 'switched-on' };
  };
}

interface ReleaseInput {
  organization: string;
  template: string;
  /**
   * The run giving it back switched it on itself, or found wsmigrate's mark as it started: the
   * setting is wsmigrate's even when the blob store has lost the mark since (another bucket, a
   * prune by hand). Without this, a lost mark read as the operator's own setting, left on with no
   * run watching the active version.
   */
  heldByThisRun?: boolean;
}

/** Switches wsmigrate's setting off (never the operator's) on the template as read. */
async function giveBack(deps: LockDeps, input: ReleaseInput, t: { id: string; require_active_version?: boolean }): Promise<ActiveVersionRelease> {
  const marker = markerBytes(t.id);
  const sha = sha256Hex(marker);
  const ours = input.heldByThisRun === true || (await deps.blobs.has(formatBlobRef(deps.blobs.location, sha)));
  if (!t.require_active_version) {
    if (ours) await deps.blobs.remove(sha);
    return 'was-off';
  }
  if (!ours) return 'left-on-by-operator';
  await coderStep('active-version release', `template ${input.organization}/${input.template}`, () => deps.coder.setTemplateRequireActiveVersion(t.id, false));
  await deps.blobs.remove(sha);
  return 'switched-off';
}

/** Switches the setting off if it was wsmigrate's: once the old versions are archived, and as every fleet run ends. */
export function makeReleaseActiveVersion(deps: LockDeps) {
  return async function releaseActiveVersion(input: ReleaseInput): Promise<ActiveVersionRelease> {
    return giveBack(deps, input, await templateOf(deps, input.organization, input.template));
  };
}

/**
 * While the fleet holds the lock, the active version must stay its target: with
 * require_active_version on, Coder's autostart and every member's start build the *active* version
 * (coderd/autobuild/lifecycle_executor.go useActiveVersion), so an old version promoted again (a
 * rollback) would be built on every migrated workspace's `_v1` state and destroy its PVC. Without
 * the setting those builds take the previous build's version, the migrated one. So when the active
 * version is another, wsmigrate's setting is given back at once.
 */
export function makeCheckActiveVersion(deps: ActivityDeps) {
  return async function checkActiveVersion(input: { organization: string; template: string; targetVersionId: string }): Promise<ActiveVersionCheck> {
    const t = await templateOf(deps, input.organization, input.template);
    if (t.active_version_id === input.targetVersionId) return { state: 'target' };
    const release = await giveBack(deps, input, t);
    const name = await deps.coder.templateVersion(t.active_version_id).then(
      (v) => v.name,
      () => undefined,
    );
    return { state: 'changed', activeVersionId: t.active_version_id, ...(name ? { activeVersionName: name } : {}), release };
  };
}
