import { builtBy } from '../domain/build-initiator';
import { sha256Hex } from '../adapters/hash';
import { CoderVersionError, describeVersionGate, parseCoderVersion, supportsStateInBuilds, updateRestartStopsFirst } from '../domain/coder-version';
import { summarizeStateMigration } from '../domain/migration-check';
import { parseStateV4, StateFormatError } from '../domain/state';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, coderStep, refuse, refuseOn } from './failures';
import type { ActivityDeps } from './ports';
import type { LoadTemplateSource } from './template-source';
import { isCoderApiError } from '../adapters/coder';
import { PREBUILT_LEFT_TO_CODER, isPrebuiltWorkspace } from '../domain/prebuilt-workspaces';
import { autoDeleteWarning, dormantWhoMustAct, type OwnerStanding } from '../domain/dormancy';
import type { BuildInfo, TemplateVersion, TemplateVersionParameter, TemplateVersionVariable } from '../adapters/coder';
import type { StepReads } from './step-reads';
import { refuseDeleted } from './deleted-workspace';
import { refuseUnlessTokenMayMigrate } from './token-permissions';
import { stateTypesStillDeclared } from '../domain/module-coverage';
import { downgradeHazardsAgainst, holdsMigratedEntries, rootManagedDeclarations } from '../domain/downgrade-guard';
import { parameterRefusals, sameParameterRules } from '../domain/build-parameters';
import { describeIdentityChanges, parseRootConfig, persistentIdentityChanges } from '../domain/claim-identity';
import { sensitiveValuesFor } from './push-template-version';
import { variableChanges } from '../domain/version-settings';
import { startsOnAnotherActiveVersion } from '../domain/active-version-starts';
import { inactiveTargetRefusal, inactiveTargetWarning, movesOntoInactiveVersion, type ActiveVersionFacts } from '../domain/inactive-target';

export interface WorkspacePreflightInput {
  owner: string;
  workspace: string;
  template: string;
  targetVersionId: string;
  strategy: 'rename' | 'import';
  /** Proceed onto a target that is not the template's active version (the result then warns); refused otherwise. */
  allowInactiveVersion?: boolean;
}

export interface WorkspacePreflight {
  workspaceId: string;
  subject: string;
  coderVersion: string;
  updateRestartStopsFirst: boolean;
  latestBuild: { id: string; buildNumber: number; transition: 'start' | 'stop' | 'delete'; templateVersionId: string };
  /** The transition and version to return to if the migration must be undone. */
  prior: { transition: 'start' | 'stop'; templateVersionId: string };
  targetVersionName: string;
  stateSha256: string;
  renameable: number;
  needsImport: string[];
  alreadyMigrated: boolean;
  onTargetVersion: boolean;
  /** Set when the workspace is dormant: Coder starts it for nobody until it is made active. */
  dormantSince?: string;
  /** With dormantSince: who must make it active and how (an admin alone when its owner is suspended), and when Coder deletes it. */
  dormantAction?: string;
  /** Set when the run, allowed to, moves the workspace onto a version that is not active: what its owner's Update would do. */
  inactiveTarget?: string;
}

const ACTIVE_JOB = new Set(['pending', 'running', 'canceling']);

/** Every check that must pass before anything changes; reads only. */
/** `reads` (optional) give Coder's build info and a target version as a worker keeps them (cached-reads.ts). */
export function makePreflightWorkspace(
  { coder, templateVariables }: ActivityDeps,
  loadTemplateSource: LoadTemplateSource,
  reads: {
    buildInfo: () => Promise<BuildInfo>;
    templateVersion: (id: string) => Promise<TemplateVersion>;
    templateVersionVariables: (id: string) => Promise<TemplateVersionVariable[]>;
    templateVersionParameters: (id: string) => Promise<TemplateVersionParameter[]>;
  } = {
    buildInfo: () => coder.buildInfo(),
    templateVersion: (id) => coder.templateVersion(id),
    templateVersionVariables: (id) => coder.templateVersionVariables(id),
    templateVersionParameters: (id) => coder.templateVersionRichParameters(id),
  },
) {
  /** `stepReads`: where a combined step keeps what this read (the workspace, its latest state) for the part after it. */
  return async function preflightWorkspace(input: WorkspacePreflightInput, stepReads?: StepReads): Promise<WorkspacePreflight> {
    const subject = `${input.owner}/${input.workspace}`;
    const step = 'preflight';
    const variablesOf = (versionId: string) => coderStep(step, subject, () => reads.templateVersionVariables(versionId));
    const parametersOf = (versionId: string) => coderStep(step, subject, () => reads.templateVersionParameters(versionId));
    /** Whether the active version's Update would destroy what the migrated state holds (it declares their old types). */
    const activeVersionFacts = async (activeId: string, resources: Parameters<typeof stateTypesStillDeclared>[0]): Promise<ActiveVersionFacts> => {
      const files = (await loadTemplateSource(activeId, subject)).terraform;
      const oldTypes =
        stateTypesStillDeclared(resources, files).length > 0 || (holdsMigratedEntries(resources) && downgradeHazardsAgainst(resources, rootManagedDeclarations(files)).length > 0);
      return { id: activeId, oldTypes };
    };
    const info = await coderStep(step, subject, reads.buildInfo);
    const version = refuseOn(step, subject, [CoderVersionError], () => parseCoderVersion(info.version));
    if (!supportsStateInBuilds(version)) throw refuse(step, subject, describeVersionGate(version));

    const ws = await coderStep(step, subject, () => coder.workspaceByOwnerAndName(input.owner, input.workspace).catch((err: unknown) => refuseIfDeleted(coder, input, err)));
    if (ws.template_name !== input.template) {
      // A name typed wrong, like an unknown workspace (404): a usage error, not a refusal of a sound request.
      throw ApplicationFailure.create({
        message: `${step} refused for ${subject}: the workspace uses template '${ws.template_name}', not '${input.template}'; check the template name`,
        type: FailureType.unknownName,
        nonRetryable: true,
      });
    }
    if (isPrebuiltWorkspace(ws)) throw refuse(step, subject, `${PREBUILT_LEFT_TO_CODER}; nothing was built`);
    const latest = ws.latest_build;
    const priorTransition = latest.transition === 'start' && latest.job.status === 'succeeded' ? 'start' : 'stop';
    // coderd/rbac: a dormant workspace may be stopped but started by nobody, so the migration's start would be refused after its stop.
    if (ws.dormant_at && priorTransition === 'start') {
      const owner = await ownerStanding(coder, ws);
      throw ApplicationFailure.create({
        message:
          `${step} refused for ${subject}: the workspace is running but dormant (since ${ws.dormant_at}): Coder lets nobody start a dormant workspace, so the migration could not start it again; nothing was stopped: ` +
          `${dormantWhoMustAct(ws.id, owner)}, then run the migration again (or stop it and migrate it stopped)` +
          (ws.deleting_at ? `. ${autoDeleteWarning(ws.deleting_at)}` : ''),
        type: FailureType.dormant,
        nonRetryable: true,
      });
    }
    await refuseUnlessTokenMayMigrate(coder, subject, {
      organizationId: ws.organization_id,
      organization: ws.organization_name ?? ws.organization_id,
      templateId: ws.template_id,
      template: input.template,
      workspace: { id: ws.id, ownerId: ws.owner_id, dormant: Boolean(ws.dormant_at) },
    });
    if (ACTIVE_JOB.has(latest.job.status)) {
      throw ApplicationFailure.create({
        message: `preflight: ${subject} has build #${latest.build_number} (${latest.transition}${latest.initiator_name || latest.reason ? ` by ${builtBy({ initiator: latest.initiator_name, reason: latest.reason })}` : ''}) ${latest.job.status}; waiting for it to finish`,
        type: FailureType.busy,
      });
    }
    if (latest.transition === 'delete') throw refuse(step, subject, 'the workspace is deleted or being deleted; nothing to migrate');

    const target = await coderStep(step, subject, () => reads.templateVersion(input.targetVersionId));
    if (target.template_id !== ws.template_id) {
      throw refuse(step, subject, `template version ${input.targetVersionId} belongs to another template; pass the version migrateTemplate created`);
    }
    if (target.job.status !== 'succeeded') {
      throw refuse(step, subject, `template version ${target.name} did not import successfully (job ${target.job.status}); fix the template first`);
    }

    const state = await coderStep(step, subject, () => coder.getWorkspaceBuildState(latest.id));
    if (stepReads) {
      stepReads.workspace = ws;
      stepReads.states = new Map([[latest.id, state]]);
    }
    const parsed = refuseOn(step, subject, [StateFormatError], () => parseStateV4(state.toString('utf8')), `the state of build #${latest.build_number} cannot be migrated: `);
    const summary = summarizeStateMigration(parsed.resources);
    // Refused before anything stops: migrating onto a version with the old types is downtime for a guard denial.
    const stillOld = summary.renameable.length ? stateTypesStillDeclared(parsed.resources, (await loadTemplateSource(input.targetVersionId, subject)).terraform) : [];
    if (stillOld.length > 0) {
      throw refuse(step, subject, `template version ${target.name} still declares ${stillOld.slice(0, 5).join(', ')} with the deprecated type, so it is not a migrated version; pass --version the id 'wsmigrate migrate template' printed (its result's versionId)`);
    }
    const activeHazard = summary.renameable.length + summary.needsImport.length > 0 ? startsOnAnotherActiveVersion(ws, input.targetVersionId) : undefined;
    if (activeHazard) throw refuse(step, subject, activeHazard);
    // A state already migrated, and a version that declares the old types of its _v1 entries: every
    // build of it destroys the volumes. The guard would deny it after the stop (downtime for nothing,
    // and recover would call the workspace "unmigrated"): say so before anything stops.
    const downgrade = summary.renameable.length === 0 && holdsMigratedEntries(parsed.resources)
      ? downgradeHazardsAgainst(parsed.resources, rootManagedDeclarations((await loadTemplateSource(input.targetVersionId, subject)).terraform))
      : [];
    if (downgrade.length > 0) {
      throw refuse(
        step,
        subject,
        `template version ${target.name} is older than this workspace's migrated state (${downgrade.slice(0, 5).join('; ')}), so it is not a migrated version; nothing was stopped. ` +
          `Pass --version the id 'wsmigrate migrate template' printed (its result's versionId)`,
      );
    }
    // After the refusals that say the version is no migrated one at all: those are the truer reason.
    const inactive = movesOntoInactiveVersion(ws, input.targetVersionId, summary.renameable.length + summary.needsImport.length);
    const active = inactive ? await activeVersionFacts(ws.template_active_version_id, parsed.resources) : undefined;
    if (active && !input.allowInactiveVersion) throw refuse(step, subject, inactiveTargetRefusal(input.template, { id: input.targetVersionId, name: target.name }, active));
    if (latest.template_version_id !== input.targetVersionId && summary.renameable.length > 0) {
      const [current, wanted] = await Promise.all([variablesOf(latest.template_version_id), variablesOf(input.targetVersionId)]);
      const changed = variableChanges(current, wanted);
      if (changed.length > 0) {
        throw refuse(
          step,
          subject,
          `template version ${target.name} stores other template variable values than the version build #${latest.build_number} ran (` +
            `${changed.slice(0, 5).map((c) => `${c.name}: '${c.from}' → '${c.to}'`).join(', ')}), so the migration's build would plan with them: a changed namespace or claim name replaces the home volume. ` +
            `Pass the version 'wsmigrate migrate template' pushed (it carries the values), or push the target with the same values ('coder templates push --var NAME=VALUE')`,
        );
      }
      await refuseIdentityChanges({
        step,
        subject,
        target: target.name,
        buildNumber: latest.build_number,
        resources: parsed.resources,
        files: (await loadTemplateSource(input.targetVersionId, subject)).terraform,
        variables: wanted,
        given: await sensitiveValuesFor(templateVariables, step, { subject, organization: ws.organization_name ?? undefined, template: input.template }, wanted),
        workspace: { id: ws.id, name: ws.name, ownerName: ws.owner_name, ownerId: ws.owner_id },
      });
      // Coder would refuse the migration's build (400) only after the stop: say so before anything stops.
      const [ran, next] = await Promise.all([parametersOf(latest.template_version_id), parametersOf(input.targetVersionId)]);
      if (!sameParameterRules(ran, next)) {
        const refusals = parameterRefusals(next, await coderStep(step, subject, () => coder.workspaceBuildParameters(latest.id)));
        if (refusals.length > 0) {
          throw refuse(
            step,
            subject,
            `Coder would refuse a build of template version ${target.name} with the parameter values of build #${latest.build_number} (${refusals.slice(0, 5).join('; ')}). ` +
              // Not 'coder update --parameter': on a migrated version with the old state, that build replaces the home volume.
              `The migration gives no values of its own. Pass the version 'wsmigrate migrate template' pushed (its parameters are the old version's), or push a target whose new parameters have defaults the workspace's values satisfy`,
          );
        }
      }
    }
    if (summary.needsImport.length > 0 && input.strategy === 'rename') {
      throw refuse(
        step,
        subject,
        `${summary.needsImport.join(', ')} ${summary.needsImport.length === 1 ? 'is a type' : 'are types'} whose _v1 twin is another implementation, ` +
          'so a state rename would corrupt it; run with strategy "import" (needs cluster access) or migrate these by hand',
      );
    }
    return {
      workspaceId: ws.id,
      subject,
      coderVersion: info.version,
      updateRestartStopsFirst: updateRestartStopsFirst(version),
      latestBuild: { id: latest.id, buildNumber: latest.build_number, transition: latest.transition, templateVersionId: latest.template_version_id },
      prior: { transition: priorTransition, templateVersionId: latest.template_version_id },
      targetVersionName: target.name,
      stateSha256: sha256Hex(state),
      renameable: summary.renameable.length,
      needsImport: summary.needsImport,
      alreadyMigrated: summary.migrated,
      onTargetVersion: latest.template_version_id === input.targetVersionId,
      ...(ws.dormant_at
        ? { dormantSince: ws.dormant_at, dormantAction: dormantWhoMustAct(ws.id, await ownerStanding(coder, ws)) + (ws.deleting_at ? `. ${autoDeleteWarning(ws.deleting_at)}` : '') }
        : {}),
      ...(active ? { inactiveTarget: inactiveTargetWarning(subject, input.template, { id: input.targetVersionId, name: target.name }, active) } : {}),
    };
  };
}

/**
 * A persistent object whose name or namespace the target version computes otherwise than the state
 * holds is replaced by the migration's build. The values come from the target version (Coder's stored
 * variables; a sensitive one from the worker's WSMIGRATE_TEMPLATE_VARIABLES, else unknown) and the
 * workspace; whatever cannot be known before the plan is not compared.
 */
async function refuseIdentityChanges(a: {
  step: string;
  subject: string;
  target: string;
  buildNumber: number;
  resources: Parameters<typeof persistentIdentityChanges>[0];
  files: readonly { path: string; content: string }[];
  variables: readonly { name: string; value: string; sensitive: boolean }[];
  given: { sensitiveValues?: Readonly<Record<string, string>> };
  workspace: { id: string; name: string; ownerName: string; ownerId: string };
}): Promise<void> {
  let parsed;
  try {
    parsed = parsedConfigOf(a.files);
  } catch {
    return; // the rewrite and the guard read the source too: a file this cannot parse is theirs to refuse
  }
  const variables = Object.fromEntries(a.variables.map((v) => [v.name, v.sensitive ? a.given.sensitiveValues?.[v.name] : v.value]));
  const changes = persistentIdentityChanges(a.resources, parsed, { variables, workspace: a.workspace });
  if (changes.length === 0) return;
  const secrets = a.variables.filter((v) => v.sensitive).map((v) => a.given.sensitiveValues?.[v.name]).filter((v): v is string => v !== undefined);
  throw refuse(
    a.step,
    a.subject,
    `template version ${a.target} would ${describeIdentityChanges(changes, secrets, `build #${a.buildNumber}`)}: the migration's build would replace it and its data with it. ` +
      `Check the version's variable values (a sensitive one from WSMIGRATE_TEMPLATE_VARIABLES must be the one the template was pushed with) and the workspace's name, then run again`,
  );
}

/** The loader keeps each version's files (one array per version), so a fleet's preflights parse each version once. */
const parsedConfigs = new WeakMap<readonly { path: string; content: string }[], ReturnType<typeof parseRootConfig>>();
function parsedConfigOf(files: readonly { path: string; content: string }[]): ReturnType<typeof parseRootConfig> {
  const kept = parsedConfigs.get(files);
  if (kept) return kept;
  const parsed = parseRootConfig(files);
  parsedConfigs.set(files, parsed);
  return parsed;
}

/**
 * A workspace that is not found may have been deleted (its owner, while a migration waited): said so,
 * as a refusal, instead of a bare 404. Anything else is the original error.
 */
async function refuseIfDeleted(coder: ActivityDeps['coder'], input: WorkspacePreflightInput, err: unknown): Promise<never> {
  if (!isCoderApiError(err, 'not-found')) throw err;
  const gone = await coder.workspaceByOwnerAndName(input.owner, input.workspace, { includeDeleted: true }).catch(() => undefined);
  const latest = gone?.latest_build;
  if (!latest || latest.transition !== 'delete') throw err;
  throw refuseDeleted('preflight', `${input.owner}/${input.workspace}`, latest);
}

/** The owner as far as who may act goes: a suspended one cannot sign in to make a dormant workspace active (coderd/httpmw/apikey.go). Unknown when Coder will not say. */
async function ownerStanding(coder: Pick<ActivityDeps['coder'], 'userByName'>, ws: { owner_id: string; owner_name: string }): Promise<OwnerStanding | undefined> {
  return coder.userByName(ws.owner_id).then(
    (u) => ({ name: ws.owner_name, suspended: u.status === 'suspended' }),
    () => undefined,
  );
}
