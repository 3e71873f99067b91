/**
 * The layers of DESIGN.md and STYLE.md ("The house we aim for"), as rules: imports only point down,
 *   cli/, chatops/ → client/ → workflows/ (types only) → activities/ → adapters/ → ports/, contracts/, domain/, config/
 * with worker/ wiring activities, adapters and workflows together, and sim/ (the Coder simulator) beside the product.
 * `make test` runs it (npx depcruise src).
 */
const layer = (name) => `^src/${name}/`;

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle of runtime imports makes two modules one; split what both need into a lower layer. (A cycle through type-only imports loads nothing.)',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ is plain functions over plain data: no I/O, no Temporal, nothing from the layers above.',
      from: { path: layer('domain') },
      to: { path: ['^src/(?!domain/)', '^(node:)?(fs|net|http|https|child_process|os|dgram|tls)$', '^@temporalio/'] },
    },
    {
      name: 'config-below-adapters',
      severity: 'error',
      from: { path: layer('config') },
      to: { path: '^src/(?!(config|domain)/)' },
    },
    {
      name: 'adapters-below-activities',
      severity: 'error',
      comment: 'adapters/ implement ports; they never reach up into activities, workflows, client or the CLI.',
      from: { path: layer('adapters') },
      to: { path: '^src/(activities|workflows|client|cli|chatops|worker|sim)/' },
    },
    {
      name: 'activities-below-workflows',
      severity: 'error',
      from: { path: layer('activities') },
      to: { path: '^src/(workflows|client|cli|chatops|worker|sim)/' },
    },
    {
      name: 'workflows-import-activities-as-types-only',
      severity: 'error',
      comment: 'Workflow code runs in the sandbox: it may name activity types, never load activity code.',
      from: { path: layer('workflows') },
      to: { path: '^src/(activities|adapters)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-below-client',
      severity: 'error',
      from: { path: layer('workflows') },
      to: { path: '^src/(client|cli|chatops|worker|sim|config)/' },
    },
    {
      name: 'client-below-cli',
      severity: 'error',
      comment: 'client/ is the one door for the CLI, chatops and schedules.',
      from: { path: layer('client') },
      to: { path: '^src/(cli|chatops|worker|sim)/' },
    },
    {
      name: 'client-runs-no-activity-code',
      severity: 'error',
      comment: 'client/ starts and queries workflows; what it shares with activities lives in a lower layer.',
      from: { path: layer('client') },
      to: { path: layer('activities'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ports-and-contracts-at-the-bottom',
      severity: 'error',
      comment: 'ports/ (what adapters implement) and contracts/ (what two sides agree on) depend on domain/ alone.',
      from: { path: '^src/(ports|contracts)/' },
      to: { path: '^src/(?!(domain|ports|contracts)/)' },
    },
    {
      name: 'chatops-uses-client',
      severity: 'error',
      from: { path: layer('chatops') },
      to: { path: '^src/(cli|worker|sim|activities)/' },
    },
    {
      name: 'sim-is-beside-the-product',
      severity: 'error',
      comment: 'The simulator stands in for Coder: it may use domain/ and adapters/ (tar, kube), never the runbook.',
      from: { path: layer('sim') },
      to: { path: '^src/(activities|workflows|client|cli|chatops|worker)/' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      from: { path: '^src/(?!cli/)' },
      to: { path: layer('cli') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
