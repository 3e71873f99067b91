import { CoderClient, givenVersionProblem, isCoderApiError, unknownNames, UNKNOWN_NAMES_HINT } from '../adapters/coder';
import type { WsmigrateConfig } from '../config/env';
import { CliError, EXIT } from './io';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NamesToCheck {
  organization: string;
  templates: readonly string[];
  owners: readonly string[];
  exclude: readonly string[];
  /** `--version`: the one template's `_v1` version the run would take as done. */
  version?: string;
  /**
   * `fleet start` (not a dry run): `--version` must be the template's active version now, as the
   * fleet itself refuses at its start; `lock`: it is to make the template require it. A schedule's
   * version may be promoted before its first window, which refuses it then.
   */
  mustBeActive?: { lock: boolean };
}

/**
 * A schedule's first window may be days away, and a fleet started without --wait exits before its
 * workflow refuses anything: with Coder's URL and token in this shell, the names (and a --version) are checked now, and a typo is a usage error (exit 2) before the schedule exists. Without
 * them, nothing is checked here (each window's fleet refuses unknown names before any change), and
 * the answer says so. Only reads.
 */
export async function refuseUnknownNamesNow(cfg: Pick<WsmigrateConfig, 'coderUrl' | 'coderSessionToken'>, names: NamesToCheck, what: 'fleet' | 'schedule'): Promise<'checked' | 'not-checked'> {
  if (!cfg.coderUrl || !cfg.coderSessionToken) return 'not-checked';
  const coder = new CoderClient({ url: cfg.coderUrl, token: cfg.coderSessionToken, userAgent: 'wsmigrate-cli' });
  const problems: string[] = [];
  const found: { id: string; name: string; active_version_id: string }[] = [];
  for (const template of names.templates) {
    try {
      found.push(await coder.templateByName(names.organization, template));
    } catch (err) {
      if (!isCoderApiError(err, 'not-found')) throw err;
      problems.push(`no template '${template}' in organization '${names.organization}' (--template, --org)`);
    }
  }
  // --all-templates names no template: the organization itself is the name to check (a typo used to start a run that failed with 'Activity task failed').
  let organizationKnown = true;
  if (names.templates.length === 0) {
    organizationKnown = await coder.templatesOfOrganization(names.organization).then(
      () => true,
      (err: unknown) => {
        if (isCoderApiError(err, 'not-found')) return false;
        throw err;
      },
    );
    if (!organizationKnown) problems.push(`no organization '${names.organization}' that this token can read (--org; the organization's name, e.g. 'coder', or its id)`);
  }
  if (organizationKnown) problems.push(...(await unknownNames(coder, names)));
  // An unknown organization is all that was read: the hint about owners' usernames would not apply.
  const hint = organizationKnown ? UNKNOWN_NAMES_HINT : "check the spelling ('coder organizations show me' lists yours), then start again";
  if (problems.length > 0) throw new CliError(`Coder (${coder.url}) has ${problems.join(', ')}; ${what === 'schedule' ? hint.replace('start again', 'create it again') : hint}`, EXIT.usage);
  const [template] = found;
  // Not a UUID: the run's input check says so, in its own words.
  if (names.version && UUID.test(names.version) && template && names.templates.length === 1) {
    const active = names.mustBeActive ? { activeVersionId: template.active_version_id, lock: names.mustBeActive.lock } : undefined;
    const problem = await givenVersionProblem(coder, { id: template.id, organization: names.organization, name: template.name }, names.version, active);
    if (problem) throw new CliError(`--version ${names.version}: ${problem.text}`, problem.unknown ? EXIT.usage : EXIT.denied);
  }
  return 'checked';
}

/**
 * `migrate workspace` and `recover` of a workspace Coder does not know: with Coder's URL and token in
 * this shell, a usage error (exit 2) before any run starts, as `fleet start` refuses an unknown
 * --owner; without them the run's preflight refuses it (and `--wait` exits 2). Only reads.
 */
export async function refuseUnknownWorkspaceNow(cfg: Pick<WsmigrateConfig, 'coderUrl' | 'coderSessionToken'>, owner: string, workspace: string, template: string): Promise<void> {
  if (!cfg.coderUrl || !cfg.coderSessionToken) return;
  const coder = new CoderClient({ url: cfg.coderUrl, token: cfg.coderSessionToken, userAgent: 'wsmigrate-cli' });
  const [missing] = await unknownNames(coder, { owners: [], exclude: [`${owner}/${workspace}`] });
  if (missing) {
    throw new CliError(
      `Coder (${coder.url}) has no workspace '${owner}/${workspace}' (or this token cannot read it): nothing was started; check the owner's username and the workspace's name ('wsmigrate scan --template ${template}' lists each workspace as owner/name)`,
      EXIT.usage,
    );
  }
}
