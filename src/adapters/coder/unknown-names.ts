import type { CoderClient } from './client';
import { isCoderApiError } from './errors';

export interface NamedFilters {
  owners: readonly string[];
  /** `owner/workspace` entries. */
  exclude: readonly string[];
}

/**
 * The owners and `owner/workspace` entries Coder does not know, each as a phrase naming the flag
 * ("no user 'bob' (--owner)"); empty when every name exists. Only reads. Coder answers an unknown
 * username with 400 `"user" must be an existing uuid or username.` (coderd/httpmw/userparam.go,
 * extractUserContext) and an unknown workspace with 404 (coderd/workspaces.go
 * workspaceByOwnerAndName, 400 when its owner is unknown); any other failure is thrown.
 */
export async function unknownNames(coder: Pick<CoderClient, 'userByName' | 'workspaceByOwnerAndName'>, names: NamedFilters): Promise<string[]> {
  const problems: string[] = [];
  for (const owner of names.owners) {
    if (!(await exists(() => coder.userByName(owner)))) problems.push(`no user '${owner}' (--owner)`);
  }
  for (const entry of names.exclude) {
    const [owner, name] = entry.split('/');
    if (!(await exists(() => coder.workspaceByOwnerAndName(owner, name)))) problems.push(`no workspace '${entry}' (--exclude)`);
  }
  return problems;
}

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (err) {
    if (isCoderApiError(err, 'not-found') || isCoderApiError(err, 'bad-request')) return false;
    throw err;
  }
}

/** What to do about the names `unknownNames` found. */
export const UNKNOWN_NAMES_HINT = "check the spelling (usernames, not display names; 'wsmigrate scan --template <name>' lists each workspace as owner/name), then start again";
