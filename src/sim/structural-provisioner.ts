import { applyPlan } from './build-apply';
import { renderPlan, stageLine, tfLine, type LogLine } from './build-log';
import { planBuild } from './build-plan';
import type { KubeCluster } from './kube-cluster';
import { firstInvalidName } from './kube-names';
import type { ProvisionRequest, ProvisionResult, SimProvisioner } from './provisioner';
import { parseState, serializeState } from './terraform-state';
import { buildResolver, type Transition } from './workspace-context';

export const STAGE_OF: Record<Transition, string> = { start: 'Starting workspace', stop: 'Stopping workspace', delete: 'Destroying workspace' };

/** The fast provisioner: plans with the simulator's model of Terraform and applies to the fake cluster. */
export class StructuralProvisioner implements SimProvisioner {
  readonly kind = 'structural' as const;

  constructor(
    readonly cluster: KubeCluster,
    private readonly newId: () => string,
  ) {}

  provision(req: ProvisionRequest): Promise<ProvisionResult> {
    const { config, ctx } = req;
    const logs: LogLine[] = [];
    const prior = parseState(req.state, this.newId());
    const resolve = buildResolver(ctx, config, () => []);
    const plan = planBuild({
      config,
      state: prior,
      transition: ctx.transition,
      resolve,
      objectExists: (id) => this.cluster.get(id.kind, id.namespace, id.name) !== undefined,
    });
    logs.push(stageLine('Planning infrastructure'));
    const invalid = firstInvalidName(plan, resolve);
    if (invalid) {
      // Terraform stops at the provider's validation: nothing applied, the build keeps the state it was created with.
      const message = `metadata.0.name ${invalid.problem}`;
      const stage = 'Planning infrastructure';
      logs.push(
        tfLine(stage, `Error: ${message}`, 'error'),
        tfLine(stage, `  with ${invalid.address},`, 'error'),
        tfLine(stage, `  on ${invalid.file}, in resource "${invalid.type}" "${invalid.resourceName}": name "${invalid.name}"`, 'error'),
      );
      return Promise.resolve({ state: req.state, logs, error: `${message} (with ${invalid.address}, name "${invalid.name}")` });
    }
    logs.push(...renderPlan(plan, 'Planning infrastructure'));
    const stage = STAGE_OF[ctx.transition];
    logs.push(stageLine(stage));
    const outcome = applyPlan({
      plan,
      config,
      priorState: prior,
      ctx,
      cluster: this.cluster,
      buildId: req.buildId,
      stage,
      newId: this.newId,
      newPvcData: req.newPvcData,
    });
    logs.push(...outcome.logs);
    return Promise.resolve({ state: serializeState(outcome.state), logs, ...(outcome.error !== undefined ? { error: outcome.error } : {}) });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
