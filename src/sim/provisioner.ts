import type { LogLine } from './build-log';
import type { KubeClusterView } from './types';
import type { ArchiveFile } from './tar-archive';
import type { TemplateConfig } from './template-config';
import type { WorkspaceContext } from './workspace-context';

/** One workspace build as coderd hands it to a provisioner daemon. */
export interface ProvisionRequest {
  buildId: string;
  /** The previous build's state (empty for a new workspace). */
  state: Buffer;
  ctx: WorkspaceContext;
  /** The template version's parsed configuration (the structural planner reads this). */
  config: TemplateConfig;
  /** The template version's source files (the Terraform provisioner runs these). */
  files(): Promise<ArchiveFile[]>;
  /**
   * The template version's variable values, as coderd hands them to the provisioner
   * (provisionerdserver asVariableValues) and Terraform gets them: `-var name=value` each (provisioner/terraform planVars).
   */
  variables?: readonly { name: string; value: string }[];
  /** What a PVC created by this build holds (seeded homes carry their owner's data). */
  newPvcData: string;
  /**
   * Aborted when the running job is canceled (PATCH …/cancel): Coder's provisioner then interrupts
   * Terraform (SIGINT) and keeps what the apply had done. A provisioner may ignore it and run to its end,
   * as an apply that finishes before provisionerd learns of the cancel does.
   */
  interrupted?: AbortSignal;
}

export interface ProvisionResult {
  /** What the provisioner wrote, also after a failed apply (Coder keeps the partial state). */
  state: Buffer;
  logs: LogLine[];
  /** Set when the build failed: the job's error text. */
  error?: string;
}

/**
 * What runs a simulated build. `structural`: the simulator's own model of Terraform against a
 * fake cluster (fast, for fleets, benchmarks and the demo). `terraform`: real Terraform with the
 * real providers against a real Kubernetes API server (slow, the ground truth).
 */
export interface SimProvisioner {
  readonly kind: 'structural' | 'terraform';
  /** The cluster the builds act on; for `terraform` a snapshot refreshed after every build. */
  readonly cluster: KubeClusterView;
  provision(req: ProvisionRequest): Promise<ProvisionResult>;
  close(): Promise<void>;
}
