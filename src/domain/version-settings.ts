/**
 * What a new template version must carry over from the active one to build as it does. Coder's
 * import uses only the variable values sent with it (every other variable gets its default) and,
 * unlike `coder templates push`, the API reuses no provisioner tags: a version pushed bare can
 * build with another namespace, claim name or cluster than the workspaces were built with, and a
 * changed namespace or name replaces the home volume. Pure: the active version's facts in, the push's
 * settings (or why it must not happen) out.
 */
export interface ActiveVersionFacts {
  versionName: string;
  variables: readonly { name: string; value: string; sensitive: boolean }[];
  /** The active version's job tags (Coder's `scope`/`owner` among them). */
  tags: Readonly<Record<string, string>>;
  /**
   * Values the operator gave the worker for this template's sensitive variables
   * (WSMIGRATE_TEMPLATE_VARIABLES); Coder hands those back as '*redacted*'. Used for sensitive ones only.
   */
  sensitiveValues?: Readonly<Record<string, string>>;
  /** Where such values are given, for the refusal (e.g. the file and its key). */
  sensitiveValuesHint?: string;
}

export type VersionSettings =
  | { ok: true; userVariableValues: { name: string; value: string }[]; provisionerTags: Record<string, string> }
  | { ok: false; reason: string };

export function settingsToCarry(active: ActiveVersionFacts): VersionSettings {
  const given = active.sensitiveValues ?? {};
  const missing = active.variables.filter((v) => v.sensitive && !Object.hasOwn(given, v.name)).map((v) => v.name);
  if (missing.length > 0) {
    return {
      ok: false,
      reason:
        `template variable(s) ${missing.join(', ')} of the active version ${active.versionName} are sensitive: Coder hands back '*redacted*' ` +
        `instead of the value it was pushed with, so a version pushed without them would build with the default instead ` +
        `(a changed namespace or claim name replaces every home volume). Nothing was pushed. ` +
        `Give the worker their values (${active.sensitiveValuesHint ?? 'WSMIGRATE_TEMPLATE_VARIABLES: a JSON file {"<organization>/<template>": {"NAME": "VALUE"}}'}) and run again, ` +
        `or push the migrated source yourself ('wsmigrate template rewrite DIR --write', then 'coder templates push --var NAME=VALUE') and run with --version <its id>`,
    };
  }
  return {
    ok: true,
    userVariableValues: active.variables.map((v) => ({ name: v.name, value: v.sensitive ? (given[v.name] as string) : v.value })),
    provisionerTags: { ...active.tags },
  };
}

export interface VariableChange {
  name: string;
  from: string;
  to: string;
}

/**
 * The variables both versions declare whose stored values differ: a build of `target` on a
 * workspace built with `current` plans with the new values. Sensitive ones cannot be compared
 * (Coder redacts both) and are left out.
 */
export function variableChanges(
  current: readonly { name: string; value: string; sensitive: boolean }[],
  target: readonly { name: string; value: string; sensitive: boolean }[],
): VariableChange[] {
  const changes: VariableChange[] = [];
  for (const t of target) {
    const c = current.find((v) => v.name === t.name);
    if (!c || c.sensitive || t.sensitive || c.value === t.value) continue;
    changes.push({ name: t.name, from: c.value, to: t.value });
  }
  return changes;
}
