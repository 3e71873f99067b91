import { ApiError } from './api-error';
import { accessControlEntitled, type Licence } from './licence';

/**
 * The template settings PATCH /templates/{id} writes (codersdk.UpdateTemplateMeta). Through 2.31 its
 * fields are non-pointers, so a field left out of the body is written as its zero value
 * (coderd/templates.go patchTemplateMeta); a client must send the current values back.
 */
export interface TemplateMeta {
  displayName: string;
  description: string;
  icon: string;
  defaultTtlMs: number;
  activityBumpMs: number;
  allowUserAutostart: boolean;
  allowUserAutostop: boolean;
  allowUserCancelWorkspaceJobs: boolean;
  failureTtlMs: number;
  timeTilDormantMs: number;
  timeTilDormantAutodeleteMs: number;
  deprecationMessage: string;
  /** The database column: what the access-control store is asked to store, not what it reports. */
  requireActiveVersion: boolean;
  /**
   * templates.use_classic_parameter_flow: which parameter flow wsbuilder.go (`usingDynamicParameters`)
   * resolves builds with. Coder's default for a template created by 2.25+ (PR #19006, `postTemplateByOrganization`
   * `ptr.NilToDefault(createTemplate.UseClassicParameterFlow, false)`) is false: the dynamic flow. Templates
   * that existed before 2.24 were set to true by migration 000334 (PR #18290).
   */
  useClassicParameterFlow: boolean;
}

export function seededTemplateMeta(displayName: string): TemplateMeta {
  return {
    displayName,
    description: 'Kubernetes development workspaces (simulated).',
    icon: '/icon/k8s.png',
    defaultTtlMs: 0,
    activityBumpMs: 3_600_000,
    allowUserAutostart: true,
    allowUserAutostop: true,
    allowUserCancelWorkspaceJobs: false,
    failureTtlMs: 0,
    timeTilDormantMs: 0,
    timeTilDormantAutodeleteMs: 0,
    deprecationMessage: '',
    requireActiveVersion: false,
    useClassicParameterFlow: false,
  };
}

type Field = { key: keyof TemplateMeta; json: string; kind: 'string' | 'bool' | 'ms' };

const FIELDS: readonly Field[] = [
  { key: 'displayName', json: 'display_name', kind: 'string' },
  { key: 'description', json: 'description', kind: 'string' },
  { key: 'icon', json: 'icon', kind: 'string' },
  { key: 'defaultTtlMs', json: 'default_ttl_ms', kind: 'ms' },
  { key: 'activityBumpMs', json: 'activity_bump_ms', kind: 'ms' },
  { key: 'allowUserAutostart', json: 'allow_user_autostart', kind: 'bool' },
  { key: 'allowUserAutostop', json: 'allow_user_autostop', kind: 'bool' },
  { key: 'allowUserCancelWorkspaceJobs', json: 'allow_user_cancel_workspace_jobs', kind: 'bool' },
  { key: 'failureTtlMs', json: 'failure_ttl_ms', kind: 'ms' },
  { key: 'timeTilDormantMs', json: 'time_til_dormant_ms', kind: 'ms' },
  { key: 'timeTilDormantAutodeleteMs', json: 'time_til_dormant_autodelete_ms', kind: 'ms' },
  { key: 'deprecationMessage', json: 'deprecation_message', kind: 'string' },
  { key: 'requireActiveVersion', json: 'require_active_version', kind: 'bool' },
];

/** The schedule settings only the enterprise template schedule store honours. */
const ENTERPRISE_SCHEDULE_KEYS = ['allowUserAutostart', 'allowUserAutostop', 'failureTtlMs', 'timeTilDormantMs', 'timeTilDormantAutodeleteMs'] as const;

function readField(body: Record<string, unknown>, f: Field): string | number | boolean {
  const raw = body[f.json];
  if (raw === undefined || raw === null) return f.kind === 'string' ? '' : f.kind === 'bool' ? false : 0;
  if (f.kind === 'string' && typeof raw === 'string') return raw;
  if (f.kind === 'bool' && typeof raw === 'boolean') return raw;
  if (f.kind === 'ms' && typeof raw === 'number' && Number.isInteger(raw)) {
    if (raw < 0) throw new ApiError(400, 'Invalid request to update template metadata!', undefined, [{ field: f.json, detail: 'Must be a positive integer.' }]);
    return raw;
  }
  const want = f.kind === 'ms' ? 'a whole number of milliseconds' : f.kind === 'bool' ? 'a boolean' : 'a string';
  throw new ApiError(400, 'Request body must be valid JSON.', `"${f.json}" must be ${want}.`);
}

/**
 * The settings a PATCH body asks for, every omitted field at its zero value; `name` empty keeps the name.
 * `changed` is false only when every field, the name included, equals the stored one: coderd then
 * answers 304 (so a body without `name` is never a 304).
 */
export function patchedTemplateMeta(
  current: TemplateMeta,
  currentName: string,
  body: Record<string, unknown>,
  licence: Licence,
): { next: TemplateMeta; name: string; changed: boolean } {
  const askedName = readField(body, { key: 'displayName', json: 'name', kind: 'string' }) as string;
  const asked = { ...current };
  for (const f of FIELDS) (asked as Record<string, unknown>)[f.key] = readField(body, f);
  // coderd/templates.go patchTemplateMeta: `ptr.NilToDefault(req.UseClassicParameterFlow, template.UseClassicParameterFlow)`,
  // a pointer from its first release: omitted keeps the stored flow (unlike the non-pointer fields above).
  const classic = body.use_classic_parameter_flow;
  if (classic !== undefined && classic !== null && typeof classic !== 'boolean') {
    throw new ApiError(400, 'Request body must be valid JSON.', '"use_classic_parameter_flow" must be a boolean.');
  }
  asked.useClassicParameterFlow = typeof classic === 'boolean' ? classic : current.useClassicParameterFlow;
  const changed = askedName !== currentName || FIELDS.some((f) => asked[f.key] !== current[f.key]) || asked.useClassicParameterFlow !== current.useClassicParameterFlow;
  if (!accessControlEntitled(licence)) {
    // AGPLTemplateAccessControlStore.SetTemplateAccessControl stores neither require_active_version
    // nor a deprecation (it may only clear one): the PATCH still succeeds with them ignored.
    asked.requireActiveVersion = current.requireActiveVersion;
    if (asked.deprecationMessage !== '') asked.deprecationMessage = current.deprecationMessage;
    // coderd/schedule/template.go agplTemplateScheduleStore.Set writes default_ttl and activity_bump only;
    // "Don't allow changing these settings, but keep the value in the DB": the rest stay as stored.
    for (const key of ENTERPRISE_SCHEDULE_KEYS) (asked as Record<string, unknown>)[key] = current[key];
  }
  return { next: asked, name: askedName === '' ? currentName : askedName, changed };
}

/** What the lifecycle executor reads of a template's schedule (schedule.TemplateScheduleOptions). */
export interface TemplateScheduleOptions {
  userAutostartEnabled: boolean;
  userAutostopEnabled: boolean;
  failureTtlMs: number;
  timeTilDormantMs: number;
  timeTilDormantAutodeleteMs: number;
}

/**
 * TemplateScheduleStore.Get as the executor calls it: with Premium the template's settings; without (AGPL,
 * an expired licence) coderd/schedule/template.go agplTemplateScheduleStore "disregard[s] the values in the
 * database": user autostart and autostop always enabled, failure_ttl, time_til_dormant and
 * time_til_dormant_autodelete 0, so no failed-build cleanup, no dormancy and no auto-delete ever fire.
 */
export function templateScheduleOptions(meta: TemplateMeta, licence: Licence): TemplateScheduleOptions {
  if (!accessControlEntitled(licence)) return { userAutostartEnabled: true, userAutostopEnabled: true, failureTtlMs: 0, timeTilDormantMs: 0, timeTilDormantAutodeleteMs: 0 };
  return {
    userAutostartEnabled: meta.allowUserAutostart,
    userAutostopEnabled: meta.allowUserAutostop,
    failureTtlMs: meta.failureTtlMs,
    timeTilDormantMs: meta.timeTilDormantMs,
    timeTilDormantAutodeleteMs: meta.timeTilDormantAutodeleteMs,
  };
}

/** What GET /templates/{id} reports: the access-control store's reading, false without Premium. */
export function effectiveRequireActiveVersion(meta: TemplateMeta, licence: Licence): boolean {
  return accessControlEntitled(licence) && meta.requireActiveVersion;
}
