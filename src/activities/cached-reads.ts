import type { BuildInfo, TemplateVersion, TemplateVersionParameter, TemplateVersionVariable } from '../adapters/coder';
import type { CoderApi } from './ports';

/** How long a worker keeps Coder's build info: the preflight of every workspace of a fleet asks for it. */
export const BUILD_INFO_TTL_MS = 60_000;

/**
 * Coder's build info, read at most once per `ttlMs` per worker. Its version only gates what Coder
 * can do (a state inside a build, in every 2.x release: domain/coder-version.ts); no safety step
 * rests on it, and a Coder upgraded meanwhile is seen within the minute. A failed read is not kept.
 */
export function cachedBuildInfo(coder: Pick<CoderApi, 'buildInfo'>, ttlMs = BUILD_INFO_TTL_MS, now: () => number = Date.now): () => Promise<BuildInfo> {
  let kept: { at: number; info: Promise<BuildInfo> } | undefined;
  return () => {
    if (kept && now() - kept.at < ttlMs) return kept.info;
    const info = coder.buildInfo();
    const entry = { at: now(), info };
    kept = entry;
    info.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return info;
  };
}

/**
 * A template version as read, kept per worker once its import succeeded and it belongs to a
 * template: from then on neither changes (coderd/coderd.go: a version's routes rename it, cancel a
 * running import, archive or unarchive it; none imports it again or moves it to another template),
 * so the preflights of a fleet need not ask for the same target each time. A version still
 * importing, failed, or without a template yet is never kept: the next preflight asks again.
 */
export function succeededVersionReader(coder: Pick<CoderApi, 'templateVersion'>, maxEntries = 16): (versionId: string) => Promise<TemplateVersion> {
  const kept = new Map<string, TemplateVersion>();
  return async (versionId) => {
    const hit = kept.get(versionId);
    if (hit) return hit;
    const version = await coder.templateVersion(versionId);
    if (version.job.status === 'succeeded' && version.template_id) {
      kept.set(versionId, version);
      while (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
    }
    return version;
  };
}

/**
 * A template version's stored variable values, kept per worker once read: Coder stores them when
 * the import ends and never changes them (coderd/provisionerdserver UpdateJob; before that the
 * route answers 412, which is not kept). A fleet's preflights compare the same two or three versions.
 */
export function versionVariablesReader(coder: Pick<CoderApi, 'templateVersionVariables'>, maxEntries = 16): (versionId: string) => Promise<TemplateVersionVariable[]> {
  return keptPerVersion((id) => coder.templateVersionVariables(id), maxEntries);
}

/**
 * A template version's coder_parameters, kept per worker once read: stored when the import ends
 * and never changed (before that the route answers 403, which is not kept).
 */
export function versionParametersReader(coder: Pick<CoderApi, 'templateVersionRichParameters'>, maxEntries = 16): (versionId: string) => Promise<TemplateVersionParameter[]> {
  return keptPerVersion((id) => coder.templateVersionRichParameters(id), maxEntries);
}

/** The answer for each version, kept once read (a failed read is not), the oldest dropped past `maxEntries`. */
function keptPerVersion<T>(read: (versionId: string) => Promise<T>, maxEntries: number): (versionId: string) => Promise<T> {
  const kept = new Map<string, T>();
  return async (versionId) => {
    if (kept.has(versionId)) return kept.get(versionId) as T;
    const answer = await read(versionId);
    kept.set(versionId, answer);
    while (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
    return answer;
  };
}
