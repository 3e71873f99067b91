import { externalModuleRefusal, HclSyntaxError, rewriteTemplate, TemplateRewriteError, ZeroTouchRefusedError } from '../domain/template-rewrite';
import { TemplateArchiveError, writeTar } from '../adapters/template-tar';
import { sha256Hex } from '../adapters/hash';
import { blobStep, currentWorkflowRun } from './blob-step';
import { coderStep, refuse, refuseOn } from './failures';
import type { TemplateRewriteResult } from '../contracts/migrate-template';
import type { ActivityDeps } from './ports';
import type { LoadTemplateSource } from './template-source';
import { sensitiveValuesFor } from './push-template-version';
import { settingsToCarry } from '../domain/version-settings';
import { describeIdentityChanges, parseRootConfig, persistentIdentityChanges } from '../domain/claim-identity';
import { parseStateV4 } from '../domain/state';

/** Pulls the active version's source, rewrites it (with guard blocks) and stores the new archive. */
export function makeRewriteTemplateSource(deps: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  return async function rewriteTemplateSource(input: {
    subject: string;
    versionId: string;
    renameDifferent: boolean;
    /** Absent in activities scheduled before the option existed: refuse, the safe reading. */
    allowRemoteModules?: boolean;
    zeroTouch?: boolean;
    /** Set when the rewritten source is to be pushed: a push its sensitive variables would refuse is refused now, before any gate. */
    pushTo?: { organization: string; template: string };
  }): Promise<TemplateRewriteResult> {
    let source;
    try {
      source = await loadTemplateSource(input.versionId, input.subject);
    } catch (err) {
      if (err instanceof TemplateArchiveError) throw refuse('rewrite template', input.subject, `${err.message} (template version ${input.versionId})`);
      throw err;
    }
    const { files, report } = refuseOn('rewrite template', input.subject, [HclSyntaxError, TemplateRewriteError, ZeroTouchRefusedError], () =>
      rewriteTemplate(source.terraform, { renameDifferent: input.renameDifferent, zeroTouch: input.zeroTouch }),
      '',
      '. Fix the template source (`wsmigrate template rewrite DIR` shows the same problem offline), push it as a new version, then run again',
    );
    const remote = externalModuleRefusal(report.externalModules);
    if (remote && !input.allowRemoteModules) {
      throw refuse('rewrite template', input.subject, `${remote}. Nothing was pushed. Or, to rewrite the rest and leave those modules as they are, run again without --strict-modules (each workspace holding deprecated types inside such a module is then refused before its state is pushed)`);
    }
    const rewritten = new Map(files.map((f) => [f.path, f.content]));
    const archive = source.archive.map((f) =>
      rewritten.has(f.path) ? { ...f, bytes: Buffer.from(rewritten.get(f.path) as string, 'utf8') } : f,
    );
    for (const f of files) {
      if (!source.archive.some((a) => a.path === f.path)) archive.push({ path: f.path, bytes: Buffer.from(f.content, 'utf8') });
    }
    const tar = await writeTar(archive);
    const common = {
      renamedCount: report.renamed.length,
      renamed: report.renamed.slice(0, 50).map(({ file, line, from, to }) => ({ file, line, from, to })),
      refused: report.refused.slice(0, 50),
      guards: report.guards.map((g) => g.from),
      protectedResources: report.protectedResources.map((p) => p.address),
      ...(report.zeroTouch ? { zeroTouch: report.zeroTouch.map(({ from, to }) => ({ from, to })) } : {}),
    };
    if (report.unchanged) return { source: null, versionName: '', unchanged: true, ...common };
    if (input.pushTo) await refuseUncarriedVariables(deps, input.subject, input.versionId, input.pushTo, files);
    const blob = await blobStep('rewrite template', input.subject, () => deps.blobs.put(tar, { kind: 'template-source', label: input.subject, ...currentWorkflowRun() }));
    return { source: blob, versionName: `wsmigrate-${sha256Hex(tar).slice(0, 12)}`, unchanged: false, ...common };
  };
}

/**
 * What pushTemplateVersion will refuse after the push gate (a sensitive variable without a given
 * value), refused before it; and a push whose values would rename or move the claims of a
 * workspace built on the active version (a wrong sensitive value), checked on one such workspace.
 */
async function refuseUncarriedVariables(
  deps: ActivityDeps,
  subject: string,
  versionId: string,
  pushTo: { organization: string; template: string },
  rewritten: readonly { path: string; content: string }[],
): Promise<void> {
  const step = 'rewrite template';
  const variables = await coderStep(step, subject, () => deps.coder.templateVersionVariables(versionId));
  const given = await sensitiveValuesFor(deps.templateVariables, step, { subject, ...pushTo }, variables);
  const settings = settingsToCarry({ versionName: versionId, variables, tags: {}, ...given });
  if (!settings.ok) throw refuse(step, subject, settings.reason);
  if (!given.sensitiveValues) return; // every value is Coder's own: the version builds as the active one does
  const sample = await coderStep(step, subject, () => deps.coder.workspacesOfTemplatePage(pushTo.template, { offset: 0, limit: 25 }));
  const ws = sample.workspaces.find((w) => w.latest_build.template_version_id === versionId && w.latest_build.job.status === 'succeeded' && w.latest_build.transition !== 'delete');
  if (!ws) return;
  const state = await coderStep(step, subject, () => deps.coder.getWorkspaceBuildState(ws.latest_build.id));
  let resources;
  let parsed;
  try {
    resources = parseStateV4(state.toString('utf8')).resources;
    parsed = parseRootConfig(rewritten);
  } catch {
    return; // the workspace's own preflight reads its state and the version's source again, and refuses what it cannot read
  }
  const values = Object.fromEntries(settings.userVariableValues.map((v) => [v.name, v.value]));
  const changes = persistentIdentityChanges(resources, parsed, { variables: values, workspace: { id: ws.id, name: ws.name, ownerName: ws.owner_name, ownerId: ws.owner_id } });
  if (changes.length === 0) return;
  const secrets = Object.values(given.sensitiveValues);
  throw refuse(
    step,
    subject,
    `the version to push, with the values given in ${given.sensitiveValuesHint ?? 'WSMIGRATE_TEMPLATE_VARIABLES'}, would ${describeIdentityChanges(changes, secrets, `${ws.owner_name}/${ws.name}'s state`)}: ` +
      `its builds would replace those claims. Nothing was pushed. Give the values the active version was pushed with, then run again`,
  );
}
