import { deprecatedTypesIn } from '../../domain/template-deprecations';
import { unguardedProtected } from '../../domain/unguarded-protected';
import { isTerraformSource, readTar } from '../template-tar';
import type { CoderClient } from './client';
import { isCoderApiError } from './errors';

export interface GivenVersionProblem {
  /** The version is not one Coder knows (404): a typo, like an unknown template name. */
  unknown: boolean;
  text: string;
}

const WHAT_TO_DO = "pass the _v1 version 'wsmigrate migrate template' printed (its result's versionId), or leave --version out to migrate the template first";

/**
 * What is wrong with a `--version` given to a fleet, or nothing. A fleet takes the given version as
 * its target without the template's own migration, and counts every workspace already on it as done:
 * the template's old version would end the fleet "done" with every workspace skipped and none migrated,
 * and an id of nothing would fail every canary. Only reads.
 */
export async function givenVersionProblem(
  coder: Pick<CoderClient, 'templateVersion' | 'downloadFile'>,
  template: { id: string; organization: string; name: string },
  versionId: string,
  /**
   * The version must be the template's active one (a fleet that migrates, not a dry run): a migrated
   * workspace on another version shows "outdated", and its owner's Update builds the active version on
   * its _v1 state (site/src/api/api.ts updateWorkspace) and destroys the PVC. `lock`: the fleet will
   * also make the template require its active version: Coder then autostarts every workspace on the
   * ACTIVE version (coderd/autobuild/lifecycle_executor.go useActiveVersion), carrying its latest state.
   */
  active?: { activeVersionId: string; lock: boolean },
): Promise<GivenVersionProblem | undefined> {
  let version;
  try {
    version = await coder.templateVersion(versionId);
  } catch (err) {
    if (!isCoderApiError(err, 'not-found')) throw err;
    return { unknown: true, text: `Coder has no template version ${versionId} (or the token may not read it); ${WHAT_TO_DO}` };
  }
  const named = `template version ${version.name} (${versionId})`;
  if (version.template_id !== template.id) {
    return { unknown: false, text: `${named} is not a version of template ${template.organization}/${template.name}; ${WHAT_TO_DO}` };
  }
  if (version.job.status !== 'succeeded') {
    return { unknown: false, text: `${named} did not import successfully (job ${version.job.status}); fix and push it again, or ${WHAT_TO_DO.replace('pass', 'pass instead')}` };
  }
  const tar = await coder.downloadFile(version.job.file_id);
  const files = (await readTar(tar)).filter((f) => isTerraformSource(f.path)).map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
  const deprecated = deprecatedTypesIn(files);
  if (deprecated.length > 0) {
    return {
      unknown: false,
      text: `${named} still declares ${deprecated.join(', ')}: it is not a migrated version, and every workspace already on it would be skipped as done; ${WHAT_TO_DO}`,
    };
  }
  if (active && active.activeVersionId !== versionId) {
    return {
      unknown: false,
      text: active.lock
        ? `${named} is not the template's active version (${active.activeVersionId} is), and the fleet makes the template require its active version: ` +
          "Coder's autostart would then start every migrated workspace on the old active version with its _v1 state and destroy its PVC. " +
          `Promote the version first ('coder templates versions promote --template ${template.name} --template-version ${version.name}', or 'wsmigrate migrate template' without --no-promote)`
        : `${named} is not the template's active version (${active.activeVersionId} is): every workspace the fleet migrates would show "outdated", ` +
          "and its owner's one click on Update would build the old active version on its _v1 state and destroy its PVC (the fleet would also pause after its first minute, with workspaces already migrated). " +
          `Promote the version first ('coder templates versions promote --template ${template.name} --template-version ${version.name}', or 'wsmigrate migrate template' without --no-promote), or run a --dry-run against it`,
    };
  }
  // Active, and about to be required: Coder then autostarts every workspace not yet migrated on it,
  // with its old state. Without a removed{destroy=false} guard, Terraform destroys the old PVC there.
  const unguarded = active?.lock ? unguardedProtected(files) : [];
  if (unguarded.length > 0) {
    return {
      unknown: false,
      text:
        `${named} has no removed {} guard (lifecycle { destroy = false }) for ${unguarded.slice(0, 5).join(', ')}, and the fleet makes the template require its active version: ` +
        "Coder's autostart would then start every workspace not yet migrated on it with its old state, and Terraform would destroy its PVC. " +
        "Push the version 'wsmigrate migrate template' writes (it adds wsmigrate_guards.tf) and pass its id, or start the fleet with --no-require-active-version",
    };
  }
  return undefined;
}
