/**
 * For `stryker.workflows.config.mjs` only (a jest setup file there, never in the normal suite).
 * Stryker activates a mutant through `process.env`, which Temporal's workflow sandbox does not
 * have: every worker this test file creates bundles its workflows with a banner that hands the
 * active mutant's id to the sandbox's global, so the mutated branch runs inside the workflow.
 */
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { BannerPlugin, type Configuration } from 'webpack';

const create = Worker.create.bind(Worker);
Worker.create = (options: WorkerOptions) => {
  const active = process.env.__STRYKER_ACTIVE_MUTANT__;
  if (!options.workflowsPath || active === undefined) return create(options);
  const banner = `globalThis.__stryker__ = globalThis.__stryker__ || {}; globalThis.__stryker__.activeMutant = ${JSON.stringify(active)};`;
  const hook = options.bundlerOptions?.webpackConfigHook;
  return create({
    ...options,
    bundlerOptions: {
      ...options.bundlerOptions,
      webpackConfigHook: (config: Configuration) => {
        const base = hook ? hook(config) : config;
        return { ...base, plugins: [...(base.plugins ?? []), new BannerPlugin({ banner, raw: true })] };
      },
    },
  });
};
