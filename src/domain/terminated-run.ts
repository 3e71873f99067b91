import { builtBy } from './build-initiator';

/**
 * What a workspace run that Temporal ended without running its code (`temporal workflow terminate`,
 * a run timeout) left behind. Its compensation never ran: an option A stop stays stopped, a queued
 * migrated-state build was never checked, a restore was left half-way. Judged from the run's last
 * status (the steps of its last round, the phase it was in, its backup) and, when the shell can
 * read Coder, the workspace's latest build now.
 */
export interface TerminatedRunFacts {
  subject: string;
  template: string;
  how: 'terminated' | 'timed-out';
  /** The phase the run was in when it ended. */
  lastPhase?: string;
  stepsDone?: readonly string[];
  backupRef?: string;
  /** Coder's latest build of the workspace now. */
  latest?: { build_number: number; transition: string; template_version_name?: string; initiator_name?: string; reason?: string; job: { status: string } };
}

const STARTED_OVER = /^started over: /;

/** The steps of the run's last round: a stop of an earlier round was overtaken by someone's build. */
function lastRound(steps: readonly string[]): readonly string[] {
  let from = 0;
  steps.forEach((s, i) => {
    if (STARTED_OVER.test(s)) from = i + 1;
  });
  return steps.slice(from);
}

const BEFORE_ANY_BUILD = new Set(['preflight', 'backing-up', 'rewriting', 'verifying', 'awaiting-approval']);

/** Lines for `wsmigrate status`: that no compensation ran, where the workspace stands, and what to run. */
export function terminatedRunLines(f: TerminatedRunFacts): string[] {
  const how = f.how === 'terminated' ? 'terminated' : 'timed out';
  const lines = [`Temporal ${how} this run: none of its code ran after that, so nothing it had done was undone (no compensation, no restore).`];
  const round = lastRound(f.stepsDone ?? []);
  const stopped = round.includes('stop');
  const backup = f.backupRef ? ` Its backup of the state before the migration: ${f.backupRef}.` : '';
  const rerun = `run the migration again (the same --template ${f.template} and --version)`;
  const phase = f.lastPhase ?? '';
  if (phase === 'building' || phase === 'checking') {
    lines.push(
      `Its build of ${f.subject} on the new version carrying the migrated state may have been queued or run, and was never checked.${backup} ` +
        `Once no build runs on it, 'wsmigrate scan --template ${f.template}' says whether it is migrated (every PVC kept: nothing more to do) or damaged ('wsmigrate recover ${f.subject} --template ${f.template} --version <id>').`,
    );
  } else if (phase === 'compensating') {
    lines.push(
      `It was putting ${f.subject} back as it was (compensating) and may have stopped half-way.${backup} ` +
        `Once no build runs on it, 'wsmigrate scan --template ${f.template}' says where it stands; to put the pre-migration state back: 'wsmigrate state restore ${f.subject} --backup ${f.backupRef ?? '<ref>'} --yes'.`,
    );
  } else if (stopped || phase === 'stopping') {
    lines.push(
      `${stopped ? 'This run had stopped' : 'This run was stopping'} ${f.subject} (it was running; option A stops first), and no migrated state reached Coder: it is left stopped on its old version, holding its old state.${backup} ` +
        `To finish, ${rerun}: it migrates a stopped workspace stopped, in one build; then start it. Until then, mind how it is started: 'coder start' and the dashboard's Update build the active, ` +
        `migrated version on this old state when the workspace has automatic updates or the template requires the active version (coder/coder cli/start.go buildWorkspaceStartRequest), and its guard then forgets the PVC ('wsmigrate recover' puts that right).`,
    );
  } else if (BEFORE_ANY_BUILD.has(phase)) {
    const overtaken = (f.stepsDone ?? []).includes('stop') ? ' since someone built it after its earlier stop' : '';
    lines.push(`It had built nothing${overtaken}: ${f.subject} is as ${overtaken ? 'their build left it' : 'it was before the run'}.${backup} To migrate it, ${rerun}.`);
  }
  if (f.latest) {
    const b = f.latest;
    lines.push(`Coder now: build #${b.build_number} (${b.transition}${b.template_version_name ? ` on ${b.template_version_name}` : ''}, ${b.job.status}, by ${builtBy({ initiator: b.initiator_name, reason: b.reason })}).`);
  }
  return lines;
}
