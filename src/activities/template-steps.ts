import { externalModuleRefusal, HclSyntaxError, rewriteTemplate, TemplateRewriteError, ZeroTouchRefusedError } from '../domain/template-rewrite';
import { CoderVersionError, describeVersionGate, parseCoderVersion, supportsStateInBuilds } from '../domain/coder-version';
import { TemplateArchiveError, writeTar } from '../adapters/template-tar';
import { sha256Hex } from '../adapters/hash';
import { blobStep, currentWorkflowRun } from './blob-step';
import { heartbeatIfInActivity } from './heartbeat';
import { coderStep, refuse, refuseOn } from './failures';
import type { TemplateRewriteResult } from '../contracts/migrate-template';
import type { ActivityDeps } from './ports';
import { refuseUnlessTokenMayMigrate } from './token-permissions';
import type { LoadTemplateSource } from './template-source';

export interface TemplatePreflight {
  organizationId: string;
  templateId: string;
  activeVersionId: string;
  coderVersion: string;
}

export function makePreflightTemplate({ coder }: ActivityDeps) {
  return async function preflightTemplate(input: { organization: string; template: string }): Promise<TemplatePreflight> {
    const subject = `template ${input.organization}/${input.template}`;
    const info = await coderStep('preflight', subject, () => coder.buildInfo());
    const version = refuseOn('preflight', subject, [CoderVersionError], () => parseCoderVersion(info.version));
    if (!supportsStateInBuilds(version)) throw refuse('preflight', subject, describeVersionGate(version));
    const t = await coderStep('preflight', subject, () => coder.templateByName(input.organization, input.template));
    // The template's workspaces are built next (by the fleet, or by hand): a token that cannot start them is refused now.
    await refuseUnlessTokenMayMigrate(coder, subject, { organizationId: t.organization_id, organization: input.organization, templateId: t.id, template: input.template });
    return { organizationId: t.organization_id, templateId: t.id, activeVersionId: t.active_version_id, coderVersion: info.version };
  };
}

/** Pulls the active version's source, rewrites it (with guard blocks) and stores the new archive. */
export function makeRewriteTemplateSource(deps: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  return async function rewriteTemplateSource(input: {
    subject: string;
    versionId: string;
    renameDifferent: boolean;
    /** Absent in activities scheduled before the option existed: refuse, the safe reading. */
    allowRemoteModules?: boolean;
    zeroTouch?: boolean;
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
    const blob = await blobStep('rewrite template', input.subject, () => deps.blobs.put(tar, { kind: 'template-source', label: input.subject, ...currentWorkflowRun() }));
    return { source: blob, versionName: `wsmigrate-${sha256Hex(tar).slice(0, 12)}`, unchanged: false, ...common };
  };
}

/**
 * Uploads the archive and creates the version, named after the archive's hash so a retry finds
 * the version an earlier attempt created instead of making a second one.
 */
export function makePushTemplateVersion({ coder, blobs }: ActivityDeps) {
  return async function pushTemplateVersion(input: {
    subject: string;
    organizationId: string;
    templateId: string;
    sourceRef: string;
    versionName: string;
  }): Promise<{ versionId: string; versionName: string }> {
    const step = 'push template version';
    const existing = (await coderStep(step, input.subject, () => coder.templateVersions(input.templateId))).find(
      (v) => v.name === input.versionName,
    );
    let versionId = existing?.id;
    if (!versionId) {
      const tar = await blobStep(step, input.subject, () => blobs.get(input.sourceRef));
      const file = await coderStep(step, input.subject, () => coder.uploadFile(tar));
      const created = await coderStep(step, input.subject, () =>
        coder.createTemplateVersion(input.organizationId, {
          template_id: input.templateId,
          file_id: file.hash,
          name: input.versionName,
          message: 'wsmigrate: kubernetes resources renamed to their _v1 types, with removed{} guards for persistent volumes',
          storage_method: 'file',
          provisioner: 'terraform',
        }),
      );
      versionId = created.id;
    }
    const done = await coderStep(step, input.subject, () => coder.waitForTemplateVersion(versionId as string, { onPoll: (v) => heartbeatIfInActivity({ versionId: v.id, status: v.job.status }) }));
    if (done.job.status !== 'succeeded') {
      throw refuse(step, input.subject, `the new version ${input.versionName} failed to import (${done.job.status}: ${done.job.error ?? 'no error text'}); the active version is unchanged`);
    }
    return { versionId, versionName: input.versionName };
  };
}

export function makePromoteTemplateVersion({ coder }: ActivityDeps) {
  return async function promoteTemplateVersion(input: { subject: string; templateId: string; versionId: string }): Promise<{ promoted: boolean }> {
    const t = await coderStep('promote', input.subject, () => coder.template(input.templateId));
    if (t.active_version_id === input.versionId) return { promoted: false };
    await coderStep('promote', input.subject, () => coder.promoteTemplateVersion(input.templateId, input.versionId));
    return { promoted: true };
  };
}
