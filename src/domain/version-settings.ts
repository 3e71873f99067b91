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
}

export type VersionSettings =
  | { ok: true; userVariableValues: { name: string; value: string }[]; provisionerTags: Record<string, string> }
  | { ok: false; reason: string };

export function settingsToCarry(active: ActiveVersionFacts): VersionSettings {
  const sensitive = active.variables.filter((v) => v.sensitive).map((v) => v.name);
  if (sensitive.length > 0) {
    return {
      ok: false,
      reason:
        `template variable(s) ${sensitive.join(', ')} of the active version ${active.versionName} are sensitive: Coder hands back '*redacted*' ` +
        `instead of the value it was pushed with, so a version pushed by wsmigrate would build with the default instead ` +
        `(a changed namespace or claim name replaces every home volume). Nothing was pushed. Push the migrated source yourself ` +
        `with those values ('wsmigrate template rewrite DIR --write', then 'coder templates push --var NAME=VALUE'), then run with --version <its id>`,
    };
  }
  return {
    ok: true,
    userVariableValues: active.variables.map((v) => ({ name: v.name, value: v.value })),
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
