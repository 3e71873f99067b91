import { formatBlobRef } from '../domain/blob-ref';
import { isCoderApiError } from '../adapters/coder';
import { sha256Hex } from '../adapters/hash';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';

/**
 * What the fleet did about builds on the old versions while it migrates. With the template requiring
 * its active version (Premium), a member's start on a pre-migration version is refused; stops are
 * not, and template admins and owners are not held (enterprise/coderd/dbauthz/accesscontrol.go).
 * Each state is what Coder reads back, never what was asked for.
 */
export type ActiveVersionLock =
  | { state: 'switched-on' }
  /** It was on already: by an earlier fleet run (wsmigrate's marker is in the blob store), or by the operator. */
  | { state: 'already-on'; byWsmigrate: boolean }
  /**
   * Coder accepted the change and reads it back false: without a Premium licence (or with an expired
   * one) the setting is ignored (coderd/database/dbauthz/accesscontrol.go AGPLTemplateAccessControlStore;
   * coderd/templates.go patchTemplateMeta answers 200). Nothing holds anyone to the active version.
   */
  | { state: 'not-held'; reason: string }
  /** Coder refused the change: migrated workspaces stay exposed to builds on old versions. */
  | { state: 'refused'; reason: string }
  /**
   * How a run that archived the old versions ends: wsmigrate's setting (this run's or an earlier
   * batch's) switched back off, since no old version can be built from the version picker any more.
   */
  | { state: 'given-back' };

export type ActiveVersionRelease = 'switched-off' | 'left-on-by-operator' | 'was-off';

/**
 * The marker that wsmigrate, not the operator, switched the setting on: a blob whose bytes name the
 * template, so any worker finds it by its content address and a later batch (another workflow) can
 * tell whose setting it is when the old versions are finally archived.
 */
function markerBytes(templateId: string): Buffer {
  return Buffer.from(`wsmigrate template-lock v1: require_active_version was switched on by wsmigrate for template ${templateId}\n`);
}

async function templateOf(deps: ActivityDeps, organization: string, template: string) {
  return coderStep('active-version lock', `template ${organization}/${template}`, () => deps.coder.templateByName(organization, template));
}

export function makeRequireActiveVersion(deps: ActivityDeps) {
  return async function requireActiveVersion(input: { organization: string; template: string; workflowId: string }): Promise<ActiveVersionLock> {
    const t = await templateOf(deps, input.organization, input.template);
    // The fleet's first change: a token that may not run the whole migration is refused before it.
    await refuseUnlessTokenMayMigrate(deps.coder, `template ${input.organization}/${input.template}`, {
      organizationId: t.organization_id,
      organization: input.organization,
      templateId: t.id,
      template: input.template,
    });
    const marker = markerBytes(t.id);
    if (t.require_active_version) {
      return { state: 'already-on', byWsmigrate: await deps.blobs.has(formatBlobRef(deps.blobs.location, sha256Hex(marker))) };
    }
    // The marker first: a crash between the two leaves a marker for a setting that is off, which the
    // release handles; the other order could leave the operator's template locked with nobody to unlock it.
    await deps.blobs.put(marker, { kind: 'template-lock', label: `${input.organization}/${input.template}`, workflowId: input.workflowId });
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

/** Once no old version can be built any more (archived), gives the operator's setting back, if it was wsmigrate's. */
export function makeReleaseActiveVersion(deps: ActivityDeps) {
  return async function releaseActiveVersion(input: { organization: string; template: string }): Promise<ActiveVersionRelease> {
    const t = await templateOf(deps, input.organization, input.template);
    const marker = markerBytes(t.id);
    const sha = sha256Hex(marker);
    const ours = await deps.blobs.has(formatBlobRef(deps.blobs.location, sha));
    if (!t.require_active_version) {
      if (ours) await deps.blobs.remove(sha);
      return 'was-off';
    }
    if (!ours) return 'left-on-by-operator';
    await coderStep('active-version release', `template ${input.organization}/${input.template}`, () => deps.coder.setTemplateRequireActiveVersion(t.id, false));
    await deps.blobs.remove(sha);
    return 'switched-off';
  };
}
