import { readTemplateDir, templateVariable, workspaceParameter } from '../template-dir';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { LICENCES, type Licence } from '../../sim/licence';
import { CliError, EXIT, type CliIo } from '../io';

function integer(name: string, min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`${name} must be a whole number, got "${raw}".`);
    const value = Number(raw);
    if (value < min || value > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${value}.`);
    return value;
  };
}

/** coderd's default: `coder server --provisioner-daemons` (CODER_PROVISIONER_DAEMONS) is 3 (codersdk/deployment.go). */
const BUILT_IN_DAEMONS = 3;

function daemonCount(raw: string): number | 'unlimited' {
  if (raw === 'unlimited') return raw;
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`--provisioners must be a whole number or "unlimited", got "${raw}".`);
  return integer('--provisioners', 1, 1000)(raw);
}

function coderVersion(raw: string): string {
  const version = raw.startsWith('v') ? raw : `v${raw}`;
  if (!/^v\d+\.\d+\.\d+([-+].*)?$/.test(version)) {
    throw new InvalidArgumentError(`--version must look like v2.31.7 (a Coder release), got "${raw}".`);
  }
  return version;
}

interface SimOptions {
  workspaces: number;
  port: number;
  host: string;
  version: string;
  buildLatencyMs: number;
  seed?: number;
  stopped?: boolean;
  provisioner: 'structural' | 'terraform';
  kubeconfig?: string;
  licence: Licence;
  lifecycleInterval?: number;
  provisioners: number | 'unlimited';
  moreTemplate: { name: string; workspaces?: number; versioned?: boolean }[];
  userBuildsMs?: number;
  templateDir?: string;
  var: { name: string; value: string }[];
  param: { name: string; value: string }[];
  allowWorkspaceRenames?: boolean;
  prebuilds?: number;
  prebuildInterval: number;
}

/** "500ms", "30s", "1m": what `--lifecycle-interval` and `--prebuild-interval` take, in milliseconds. */
function durationOf(flag: string): (raw: string) => number {
  return (raw) => {
    const m = /^(\d+)(ms|s|m)$/.exec(raw.trim());
    const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'] : NaN;
    if (!Number.isFinite(ms) || ms < 10 || ms > 3_600_000) {
      throw new InvalidArgumentError(`${flag} must be a duration between 10ms and 60m such as 1m, 30s or 500ms, got "${raw}".`);
    }
    return ms;
  };
}
const duration = durationOf('--lifecycle-interval');

function licenceKind(raw: string): Licence {
  const wanted = raw.toLowerCase();
  const found = LICENCES.find((l) => l === wanted);
  if (found) return found;
  throw new InvalidArgumentError(`--licence must be one of ${LICENCES.join(', ')} (premium holds members to a template's active version; agpl and expired ignore require_active_version), got "${raw}".`);
}

/** `name`, `name:N` or `name:N:v1` (a template already on the _v1 types). */
function moreTemplate(raw: string, previous: SimOptions['moreTemplate']): SimOptions['moreTemplate'] {
  const m = /^([A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*)(?::(\d+))?(?::(v1))?$/.exec(raw);
  if (!m) throw new InvalidArgumentError(`--more-template takes name[:workspaces][:v1], e.g. k8s-gpu:5 or team-tools:8:v1, got "${raw}".`);
  return [...previous, { name: m[1] as string, ...(m[2] ? { workspaces: Number(m[2]) } : {}), ...(m[3] ? { versioned: true } : {}) }];
}

function provisionerKind(raw: string): 'structural' | 'terraform' {
  if (raw === 'structural' || raw === 'terraform') return raw;
  throw new InvalidArgumentError(`--provisioner must be "structural" (fast model) or "terraform" (real Terraform and a real API server), got "${raw}".`);
}

/** Resolves on the first SIGINT or SIGTERM, and stops listening for both. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onInt = (): void => done('SIGINT');
    const onTerm = (): void => done('SIGTERM');
    const done = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

export function registerSimCommands(program: Command, io: CliIo): void {
  program
    .command('sim')
    .summary('run a simulated Coder deployment (API, builds, a fake Kubernetes cluster) for demos and tests')
    .description(
      'Starts a local, in-memory Coder deployment that answers the REST API wsmigrate uses: an organization "coder", ' +
        'a Kubernetes template written with the deprecated kubernetes_* types, and N workspaces whose home volumes ' +
        'live in a fake cluster. Builds really plan the template\'s Terraform source against each workspace\'s state, ' +
        'so a wrong build destroys a volume exactly as it would on a real deployment. Runs until Ctrl-C (SIGINT) or SIGTERM.',
    )
    .option('--workspaces <n>', 'how many workspaces to seed', integer('--workspaces', 0, 100_000), 3)
    .option('--port <port>', 'port to listen on (0 picks a free one)', integer('--port', 0, 65_535), 3000)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--version <version>', 'Coder version to report; versions before 2.27.10/2.28.7/2.29.2 have no PUT state', coderVersion, 'v2.31.7')
    .option('--build-latency-ms <ms>', 'time each build phase takes (pending, running)', integer('--build-latency-ms', 0, 600_000), 200)
    .option('--seed <n>', 'make ids, names and tokens reproducible', integer('--seed', 0, 2 ** 32 - 1))
    .option('--stopped', 'seed the workspaces stopped instead of running')
    .option(
      '--provisioner <kind>',
      'what runs builds: "structural" (the simulator\'s model of Terraform, instant) or "terraform" (real Terraform, the real providers and a Kubernetes API server; about 2 s a build; needs `bash scripts/bootstrap-tools.sh --real-stack`)',
      provisionerKind,
      'structural',
    )
    .option('--kubeconfig <path>', 'with --provisioner terraform: use this cluster instead of starting a local etcd + kube-apiserver')
    .option(
      '--licence <kind>',
      'the Coder licence to act as: "agpl" (no licence, the default, as a fresh install), "expired" (both accept require_active_version, ignore it and read it back false) or "premium" (members\' starts on a non-active version are refused)',
      licenceKind,
      'agpl',
    )
    .option(
      '--lifecycle-interval <duration>',
      'run the lifecycle executor (autostart schedules, autostop deadlines, automatic updates) on its own this often, as Coder does every minute (e.g. 1m); off unless given. Tests drive it with POST /api/v2/sim/lifecycle/tick',
      duration,
    )
    .option(
      '--provisioners <n|unlimited>',
      "provisioner daemons: every job waits in one queue for one of N; 3 as Coder's built-in daemons (CODER_PROVISIONER_DAEMONS); \"unlimited\": every build runs at once and the daemons API answers 404, as an old Coder",
      daemonCount,
      BUILT_IN_DAEMONS,
    )
    .option('--template-dir <dir>', "seed the template from this directory (e.g. a real one from 'coder templates pull k8s-dev ./k8s-dev') instead of the built-in Kubernetes template")
    .option('--var <NAME=VALUE>', "a value for one of the template's variables, as 'coder templates push --var' gives it (repeatable)", templateVariable, [])
    .option('--param <NAME=VALUE>', "a value for one of the template's coder_parameters in every seeded workspace, as 'coder create --parameter' gives it (repeatable; the rest take their defaults)", workspaceParameter, [])
    .option('--allow-workspace-renames', 'let PATCH /api/v2/workspaces/{id} rename a workspace, as CODER_ALLOW_WORKSPACE_RENAMES=true does (off by default, as in Coder)')
    .option('--prebuilds <n>', "Premium's prebuilt workspaces: the template's presets keep n of them, owned by the 'prebuilds' system user; Coder's reconciler replaces those of an old version once another is active (needs --licence premium)", integer('--prebuilds', 1, 1000))
    // The default in the words the flag takes ('1m'), not as the milliseconds it parses to.
    .addOption(new Option('--prebuild-interval <duration>', 'with --prebuilds: how often the reconciler runs, as CODER_WORKSPACE_PREBUILDS_RECONCILIATION_INTERVAL (as in Coder); also POST /api/v2/sim/prebuilds/reconcile').argParser(durationOf('--prebuild-interval')).default(60_000, '1m'))
    .option('--more-template <name[:n][:v1]>', 'another template with n workspaces (default 3); v1: already on the _v1 types (repeatable)', moreTemplate, [])
    .option('--user-builds-ms <ms>', "users' own builds on the other templates' workspaces, one every <ms>", integer('--user-builds-ms', 50, 3_600_000))
    .addHelpText(
      'after',
      `
Example:
  $ wsmigrate sim --workspaces 200 --port 3000 --version v2.31.7 --seed 7
  $ wsmigrate sim --workspaces 3 --provisioner terraform     # real Terraform against a local API server
  $ wsmigrate sim --template-dir ./k8s-dev --var namespace=coder-workspaces   # your own template (coder templates pull)
  $ wsmigrate sim --template-dir ./k8s-dev --param home_disk_size=20          # its workspaces created with that parameter value
  Then paste the printed "export CODER_URL=… CODER_SESSION_TOKEN=…" line into another shell.
  The admin token is an Owner's; "role tokens" are a Template Admin's (reads every workspace, may not
  start or stop them) and an Organization Admin's. More: POST /api/v2/sim/tokens {"role": "member"}.

Hazards, driven over HTTP with the admin token (README, "The simulator's own controls"):
  PUT /api/v2/sim/faults {"failBuilds": {"transition": "start", "times": 1}}   # also lossyBuild, wrongStoredState, error500Rate, rate429, …; DELETE clears
  PATCH /api/v2/sim/provisionerdaemons/sim-provisioner-1 {"offline": true}     # a daemon goes away
  PUT /api/v2/sim/user-builds {"interval_ms": 2000}                            # users press Start/Stop on the other templates; DELETE stops
  POST /api/v2/sim/lifecycle/tick {"force": true}                              # Coder's autostart/autostop now
  GET /api/v2/sim/cluster                                                      # every object's uid, and every PVC lost

Exit codes:
  ${EXIT.ok}  stopped by SIGINT/SIGTERM
  ${EXIT.failure}  the simulator could not start (for example the port is taken)
  ${EXIT.usage}  a flag has an invalid value`,
    )
    .action(async (opts: SimOptions) => {
      const { startSimulator } = await import('../../sim');
      if (opts.prebuilds !== undefined && opts.licence !== 'premium') {
        throw new CliError(`--prebuilds needs --licence premium: prebuilt workspaces are a Premium feature (without it Coder runs no reconciler), got --licence ${opts.licence}.`, EXIT.usage);
      }
      const templateFiles = opts.templateDir !== undefined ? readTemplateDir(opts.templateDir) : undefined;
      let sim;
      try {
        sim = await startSimulator({
          workspaces: opts.workspaces,
          port: opts.port,
          host: opts.host,
          version: opts.version,
          buildLatencyMs: opts.buildLatencyMs,
          workspacesRunning: !opts.stopped,
          licence: opts.licence,
          ...(opts.lifecycleInterval !== undefined ? { lifecycleIntervalMs: opts.lifecycleInterval } : {}),
          provisioner: opts.provisioner,
          ...(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(opts.provisioners !== 'unlimited' ? { provisioners: opts.provisioners } : {}),
          moreTemplates: opts.moreTemplate,
          ...(templateFiles ? { templateFiles } : {}),
          ...(opts.var.length ? { templateVariables: opts.var } : {}),
          ...(opts.param.length ? { workspaceParameters: opts.param } : {}),
          ...(opts.allowWorkspaceRenames ? { allowWorkspaceRenames: true } : {}),
          ...(opts.prebuilds !== undefined ? { prebuilds: opts.prebuilds, prebuildReconcileIntervalMs: opts.prebuildInterval } : {}),
        });
      } catch (err) {
        if (templateFiles && !/EADDRINUSE|listen/i.test((err as Error).message)) {
          throw new CliError(`The template in ${opts.templateDir ?? ''} could not be seeded: ${(err as Error).message}`, EXIT.failure);
        }
        if (opts.provisioner === 'terraform' || opts.kubeconfig !== undefined) {
          throw new CliError(`The Coder simulator with the terraform provisioner could not start: ${(err as Error).message}`, EXIT.failure);
        }
        throw new CliError(
          `The Coder simulator could not listen on ${opts.host}:${opts.port}: ${(err as Error).message}. Pick another --port (0 picks a free one).`,
          EXIT.failure,
        );
      }
      if (opts.userBuildsMs !== undefined) {
        try {
          sim.startUserBuilds({ intervalMs: opts.userBuildsMs });
        } catch (err) {
          await sim.close();
          throw new CliError(`--user-builds-ms: ${(err as Error).message}`, EXIT.usage);
        }
      }
      io.out(`Coder simulator ${opts.version} listening on ${sim.url}`);
      io.out(`  organization: coder   template: ${sim.template.name}   workspaces: ${sim.workspaces().length}   licence: ${opts.licence}`);
      io.out(`  admin token:  ${sim.token}`);
      io.out(`  member token: ${sim.memberToken}`);
      // People only: the prebuilds system user has no token.
      const owners = [...new Set(sim.workspaces().map((w) => w.owner))].filter((o) => o !== 'prebuilds');
      if (owners.length) io.out(`  owner tokens: ${owners.map((o) => `${o}=${sim.tokenOf(o)}`).join(' ')}`);
      // Coder's built-in roles (coderd/rbac/roles.go), to try a token of each: more via POST /api/v2/sim/tokens.
      io.out(`  role tokens:  template-admin=${sim.tokenFor('template-admin', 'template-admin')} organization-admin=${sim.tokenFor('organization-admin', 'org-admin')}`);
      io.out(
        opts.provisioners === 'unlimited'
          ? '  daemons:      unlimited (every build runs at once; GET provisionerdaemons answers 404)'
          : `  daemons:      ${sim.provisionerDaemons().map((d) => d.name).join(', ')}`,
      );
      if (opts.moreTemplate.length) io.out(`  templates:    ${sim.templates().map((t) => t.name).join(', ')}`);
      if (sim.provisioner.kind === 'terraform') io.out(`  provisioner:  real Terraform against the API server in ${sim.provisioner.kubeconfig ?? ''}`);
      if (opts.lifecycleInterval !== undefined) io.out(`  lifecycle:    autostart/autostop every ${opts.lifecycleInterval} ms`);
      if (opts.prebuilds !== undefined) io.out(`  prebuilds:    ${opts.prebuilds} per version's preset (owner 'prebuilds'), reconciled every ${opts.prebuildInterval} ms`);
      io.out(`export CODER_URL=${sim.url} CODER_SESSION_TOKEN=${sim.token}`);
      const signal = await untilSignal();
      await sim.close();
      io.out(`Coder simulator stopped (${signal}).`);
    });
}
