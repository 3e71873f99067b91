import { ApiError, notFound } from '../api-error';
import { templateJson, templateVersionJson } from '../api-shapes';
import type { TemplateRecord, TemplateVersionRecord } from '../model';
import { templateVersionParametersJson } from '../template-parameters';
import { templateVersionVariablesJson } from '../template-variables';
import { ok, optionalString, page, paging, readJson, uuidParam, type Route, type RouteContext } from './route';

const TEMPLATE_VERSION_NAME = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/;

function organization(ctx: RouteContext): void {
  const ref = (ctx.params.organization ?? '').toLowerCase();
  const org = ctx.deployment.org;
  // A UUID, a name or `default` (coderd/httpmw/organizationparam.go, per coder-source-notes.md): the sim has one organization.
  if (ref !== org.id && ref !== org.name.toLowerCase() && ref !== 'default') throw notFound();
}

function templateById(ctx: RouteContext): TemplateRecord {
  return ctx.deployment.readableTemplate(ctx.actor, uuidParam(ctx, 'template', 'template'));
}

function versionById(ctx: RouteContext): TemplateVersionRecord {
  return ctx.deployment.readableVersion(ctx.actor, uuidParam(ctx, 'templateversion', 'template version'));
}

/** `user_variable_values` ([{name, value}], codersdk.VariableValue); a malformed entry is a 400 naming the field. */
function variableValuesOf(raw: unknown): { name: string; value: string }[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.some((v) => typeof v !== 'object' || v === null || typeof (v as { name?: unknown }).name !== 'string' || typeof (v as { value?: unknown }).value !== 'string')) {
    throw new ApiError(400, 'Request body must be valid JSON.', 'user_variable_values must be a list of {"name": string, "value": string}.');
  }
  return (raw as { name: string; value: string }[]).map((v) => ({ name: v.name, value: v.value }));
}

function tagsOf(raw: unknown): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw) || Object.values(raw).some((v) => typeof v !== 'string')) {
    throw new ApiError(400, 'Request body must be valid JSON.', 'provisioner_tags must be an object of strings.');
  }
  return raw as Record<string, string>;
}

export const templateRoutes: Route[] = [
  {
    method: 'GET',
    path: '/organizations/{organization}/templates/{templatename}',
    handle(ctx) {
      organization(ctx);
      const name = (ctx.params.templatename ?? '').toLowerCase();
      const found = [...ctx.deployment.templates.values()].find((t) => t.name.toLowerCase() === name);
      if (!found) throw notFound();
      const template = ctx.deployment.readableTemplate(ctx.actor, found.id);
      return ok(templateJson(ctx.deployment, template));
    },
  },
  {
    method: 'GET',
    path: '/templates/{template}',
    handle(ctx) {
      return ok(templateJson(ctx.deployment, templateById(ctx)));
    },
  },
  {
    method: 'PATCH',
    path: '/templates/{template}',
    async handle(ctx) {
      const template = templateById(ctx);
      const changed = ctx.deployment.updateTemplateMeta(ctx.actor, template, await readJson(ctx));
      // coderd answers 304 Not Modified when nothing changed.
      return changed ? ok(templateJson(ctx.deployment, template)) : { status: 304 };
    },
  },
  {
    method: 'GET',
    path: '/templates/{template}/versions',
    handle(ctx) {
      const d = ctx.deployment;
      const template = templateById(ctx);
      const withArchived = ctx.query.get('include_archived') === 'true';
      const versions = [...d.versions.values()]
        .filter((v) => v.templateId === template.id && (withArchived || !v.archived))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return ok(page(versions, paging(ctx.query)).map((v) => templateVersionJson(d, v)));
    },
  },
  {
    method: 'PATCH',
    path: '/templates/{template}/versions',
    async handle(ctx) {
      const template = templateById(ctx);
      const body = await readJson(ctx);
      const id = optionalString(body, 'id');
      if (id === undefined) throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'id', detail: 'Validation failed for tag "required"' }]);
      ctx.deployment.promoteVersion(ctx.actor, template, id.toLowerCase());
      return ok({ message: 'Updated the active template version!' });
    },
  },
  {
    method: 'GET',
    path: '/templates/{template}/versions/{templateversionname}',
    handle(ctx) {
      // coderd/templateversions.go templateVersionByName: GetTemplateVersionByTemplateIDAndName, archived versions
      // included, the name compared exactly; 404 `No template version found by name "<name>".`
      const d = ctx.deployment;
      const template = templateById(ctx);
      const name = ctx.params.templateversionname ?? '';
      const found = [...d.versions.values()].find((v) => v.templateId === template.id && v.name === name);
      if (!found) throw new ApiError(404, `No template version found by name ${JSON.stringify(name)}.`);
      return ok(templateVersionJson(d, found));
    },
  },
  {
    method: 'GET',
    path: '/templateversions/{templateversion}',
    handle(ctx) {
      const version = versionById(ctx);
      return ok(templateVersionJson(ctx.deployment, version));
    },
  },
  {
    method: 'GET',
    path: '/templateversions/{templateversion}/variables',
    handle(ctx) {
      // coderd/templateversions.go templateVersionVariables: 412 until the import ends; sensitive values redacted.
      const version = versionById(ctx);
      if (version.job.status === 'pending' || version.job.status === 'running') throw new ApiError(412, "Job hasn't completed!");
      return ok(templateVersionVariablesJson(version.variables ?? []));
    },
  },
  {
    method: 'GET',
    path: '/templateversions/{templateversion}/rich-parameters',
    handle(ctx) {
      // coderd/templateversions.go templateVersionRichParameters: 403 until the import job completed (412 in older releases).
      const version = versionById(ctx);
      if (version.job.completedAt === undefined) throw new ApiError(403, "Job hasn't completed!");
      return ok(templateVersionParametersJson(version.parameters ?? []));
    },
  },
  {
    method: 'POST',
    path: '/templateversions/{templateversion}/archive',
    handle(ctx) {
      const d = ctx.deployment;
      const version = versionById(ctx);
      if (version.archived) throw new ApiError(400, 'Template version already archived');
      const template = version.templateId ? d.template(version.templateId) : undefined;
      if (!template) throw new ApiError(400, 'Cannot archive template versions not associate with a template.');
      if (d.archiveUnusedVersions(ctx.actor, template, version.id).length === 0) {
        throw new ApiError(500, 'Internal error fetching template version.', 'Unable to archive specified version, the version is likely in use by a workspace or currently set to the active version');
      }
      return ok(`template version "${version.id}" archived`);
    },
  },
  {
    method: 'POST',
    path: '/templateversions/{templateversion}/unarchive',
    handle(ctx) {
      const d = ctx.deployment;
      const version = versionById(ctx);
      d.unarchiveVersion(ctx.actor, version);
      return ok(`template version "${version.id}" unarchived`);
    },
  },
  {
    method: 'POST',
    path: '/templates/{template}/versions/archive',
    async handle(ctx) {
      const template = templateById(ctx);
      const body = await readJson(ctx);
      // coderd/templateversions.go postArchiveTemplateVersions: without `all`, ArchiveUnusedTemplateVersions gets
      // job_status 'failed' and archives only unused versions whose import failed.
      const onlyFailed = body.all === true ? undefined : 'failed';
      return ok({ template_id: template.id, archived_ids: ctx.deployment.archiveUnusedVersions(ctx.actor, template, undefined, onlyFailed) });
    },
  },
  {
    method: 'GET',
    path: '/templateversions/{templateversion}/logs',
    handle(ctx) {
      const version = versionById(ctx);
      const after = Number(ctx.query.get('after') ?? '0') || 0;
      return ok(version.job.logs.filter((l) => l.id > after).map((l) => ({ id: l.id, created_at: l.createdAt, log_source: l.source, log_level: l.level, stage: l.stage, output: l.output })));
    },
  },
  {
    method: 'POST',
    path: '/organizations/{organization}/templateversions',
    async handle(ctx) {
      organization(ctx);
      const body = await readJson(ctx);
      if (body.example_id && body.file_id) throw new ApiError(400, 'You cannot specify both an example_id and a file_id.');
      const storage = optionalString(body, 'storage_method');
      if (storage !== undefined && storage !== 'file') {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'storage_method', detail: 'Validation failed for tag "oneof"' }]);
      }
      const fileId = optionalString(body, 'file_id');
      if (fileId === undefined) throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'file_id', detail: 'Validation failed for tag "required_without"' }]);
      const templateId = optionalString(body, 'template_id');
      const name = optionalString(body, 'name');
      // codersdk.CreateTemplateVersionRequest `validate:"omitempty,template_version_name"` (codersdk/name.go
      // TemplateVersionNameValid): at most 64 characters of `^[a-zA-Z0-9]+(?:[_.-]{1}[a-zA-Z0-9]+)*$`.
      if (name !== undefined && name !== '' && (name.length > 64 || !TEMPLATE_VERSION_NAME.test(name))) {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'name', detail: 'Validation failed for tag "template_version_name" with value: "' + name + '"' }]);
      }
      const message = optionalString(body, 'message');
      // `validate:"lt=1048577"`: a message of 1 MiB or more is refused.
      if (message !== undefined && message.length >= 1048577) {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'message', detail: 'Validation failed for tag "lt" with value: "' + message.slice(0, 32) + '…"' }]);
      }
      const userVariableValues = variableValuesOf(body.user_variable_values);
      const provisionerTags = tagsOf(body.provisioner_tags);
      const version = ctx.deployment.createTemplateVersion(ctx.actor, {
        ...(userVariableValues ? { userVariableValues } : {}),
        ...(provisionerTags ? { provisionerTags } : {}),
        fileId: fileId.toLowerCase(),
        ...(templateId !== undefined ? { templateId: templateId.toLowerCase() } : {}),
        ...(name !== undefined ? { name } : {}),
        ...(message !== undefined ? { message } : {}),
      });
      return ok(templateVersionJson(ctx.deployment, version), 201);
    },
  },
];
