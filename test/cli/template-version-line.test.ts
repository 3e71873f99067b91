import { templateNextStep, templateVersionLines } from '../../src/cli/template-version-line';
import type { TemplateMigrationStatus } from '../../src/contracts/migrate-template';

describe("status of a template run: the version it pushed and what to run next", () => {
  const id = '0b6f0a43-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
  const detail = (phase: TemplateMigrationStatus['phase']): TemplateMigrationStatus => ({ phase, approvals: [], newVersionId: id });

  it('done: the fleet start that takes the version', () => {
    expect(templateVersionLines('wsmigrate-template/coder/k8s-dev', detail('done'))).toEqual([`  new version: ? (${id})`, `    next: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`]);
  });

  it('still at its promote gate: the fleet start only once the version is promoted, since a fleet refuses one that is not active', () => {
    for (const phase of ['awaiting-approval', 'pushing', 'promoting'] as const) {
      expect(templateVersionLines('wsmigrate-template/coder/k8s-dev', detail(phase))[1]).toBe(
        `    next: once this run has promoted it (it is not active yet, and a fleet refuses a version that is not): wsmigrate fleet start --org coder --template k8s-dev --version ${id}`,
      );
    }
  });
});

describe('status of a template run that ended before its promote (cancelled, rejected, failed)', () => {
  const id = '0b6f0a43-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
  it('says the run will not promote it, and the promote that must come first, not "once this run has promoted it"', () => {
    const detail: TemplateMigrationStatus = { phase: 'awaiting-approval', approvals: [], newVersionId: id, report: { versionName: 'wsmigrate-abc' } as TemplateMigrationStatus['report'] };
    expect(templateVersionLines('wsmigrate-template/coder/k8s-dev', detail, true)[1]).toBe(
      `    next: this run ended before promoting it (it is not active, and a fleet refuses a version that is not): promote it first (coder templates versions promote --template k8s-dev --template-version wsmigrate-abc), then: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`,
    );
    // Done (promoted) and ended: the fleet start as ever.
    expect(templateVersionLines('wsmigrate-template/coder/k8s-dev', { ...detail, phase: 'done' }, true)[1]).toBe(`    next: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`);
  });
});

describe('migrate template --wait: the next step after the result', () => {
  const id = '0b6f0a43-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
  const run = 'wsmigrate-template/coder/k8s-dev';

  it('promoted (or unchanged): the fleet start that takes the version', () => {
    expect(templateNextStep(run, { outcome: 'promoted', versionId: id })).toBe(`next: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`);
    expect(templateNextStep(run, { outcome: 'unchanged', versionId: id })).toBe(`next: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`);
  });

  it('pushed with --no-promote: the promote comes first, since a fleet refuses a version that is not active', () => {
    expect(templateNextStep(run, { outcome: 'pushed', versionId: id, versionName: 'wsmigrate-abc' })).toBe(
      `next: promote it first (a fleet refuses a version that is not active): coder templates versions promote --template k8s-dev --template-version wsmigrate-abc; then: wsmigrate fleet start --org coder --template k8s-dev --version ${id}`,
    );
  });

  it('a dry run, or a workspace run, has no such step', () => {
    expect(templateNextStep(run, { outcome: 'dry-run', versionId: id })).toBeUndefined();
    expect(templateNextStep('wsmigrate/k8s-dev/alice/dev', { outcome: 'migrated' })).toBeUndefined();
  });
});
