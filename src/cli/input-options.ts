import { InputError } from '../domain/input-rules';
import { CliError, EXIT } from './io';

/** The option each field of a workflow's input comes from: a refusal names what the operator typed. */
const OPTION_OF_FIELD: Readonly<Record<string, string>> = {
  targetVersionId: '--version',
  concurrency: '--concurrency',
  canary: '--canary',
  provisionerShare: '--provisioner-share',
  'failureBudget.percent': '--budget-percent',
  'failureBudget.min': '--budget-min',
  'filters.limit': '--limit',
  'filters.name': '--name',
  'filters.owners': '--owner',
  'filters.exclude': '--exclude',
  'approval.timeout': '--approval-timeout',
  'approval.approvers': '--approver',
  'approval.escalateTo': '--escalate-to',
  buildTimeout: '--build-timeout',
};

/** `concurrency: concurrency must be 1..200` → `--concurrency must be 1..200`; a field no option sets is left as it is. */
function inOptionWords(issue: string): string {
  const field = Object.keys(OPTION_OF_FIELD).find((f) => issue.startsWith(`${f}: `));
  if (!field) return issue;
  const option = OPTION_OF_FIELD[field] as string;
  const message = issue.slice(field.length + 2);
  const name = field.split('.').pop() as string;
  return message.startsWith(`${name} `) ? `${option}${message.slice(name.length)}` : `${option}: ${message}`;
}

/** A workflow input the CLI built from options and its rules refused: a usage error in the options' words. */
export function usageErrorOf(err: InputError): CliError {
  return new CliError(`invalid input: ${err.issues.map(inOptionWords).join('; ')}`, EXIT.usage);
}

/** `--allow-inactive-version`, for each command that migrates a workspace onto a --version it is given. */
export const ALLOW_INACTIVE_HELP =
  "migrate onto a --version that is not the template's active one (refused otherwise). HAZARD: the workspace then shows " +
  '"outdated", and its owner\'s Update builds the active version: when that is an old one (the deprecated types), on the _v1 state, ' +
  'destroying the home PVC; promote the version before anyone presses Update';
