import { ApplicationFailure, upsertMemo } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { TrackedBuild } from '../contracts/migrate-workspace';
import { FailureType } from '../domain/failure-types';

export function isNeedsAttention(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === FailureType.needsAttention;
}

/**
 * Looks at every build the workflow triggers (seed 003): what it replaced, destroyed or deleted by
 * a type rename. A protected resource destroyed despite the guard ends the workflow as
 * needs-attention at once: nothing about that is a success, and a restore would not bring it back.
 */
export class BuildWatch {
  readonly tracked: TrackedBuild[] = [];

  constructor(
    private readonly acts: Pick<WsmigrateActivities, 'trackBuildChanges' | 'notify'>,
    private readonly ctx: { workflowId: string; subject: string; template: string },
    private readonly onDamage: () => void,
  ) {}

  async after(buildId: string | undefined): Promise<void> {
    if (!buildId) return;
    await this.judge(await this.acts.trackBuildChanges({ ...this.ctx, buildId }));
  }

  /** Keeps what a build changed (read by trackBuildChanges, alone or with the post-build check) and fails on a protected loss. */
  async judge(seen: TrackedBuild): Promise<void> {
    if (seen.changeCount > 0) this.tracked.push(seen);
    if (seen.protectedDestroyed.length === 0) return;
    const message =
      `${this.ctx.subject}: ${seen.transition} build #${seen.buildNumber} destroyed protected ${seen.protectedDestroyed.join(', ')}. ` +
      'Its data is gone from the cluster: restore it from your storage backups. The state backup is kept; nothing else was changed after this build.';
    this.onDamage();
    upsertMemo({ outcome: 'needs-attention' });
    await this.acts.notify({ kind: 'migration-failed', workflowId: this.ctx.workflowId, subject: `Needs attention: ${this.ctx.subject}`, text: message });
    throw ApplicationFailure.create({ message, type: FailureType.needsAttention, nonRetryable: true });
  }
}
