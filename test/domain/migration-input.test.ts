import {
  InputError,
  migrateTemplateInputSchema,
  migrateWorkspaceInputSchema,
  parseInput,
  workspaceWorkflowId,
} from '../../src/domain/migration-input';

const valid = { owner: 'alice', workspace: 'dev', template: 'k8s-dev', targetVersionId: '0b3c6f7e-1d2a-4b5c-8d9e-0f1a2b3c4d5e' };

describe('migrateWorkspace input', () => {
  it('fills the safe defaults: option A, rename, destructive approvals, no dry run', () => {
    const p = parseInput(migrateWorkspaceInputSchema, valid);
    expect(p).toMatchObject({ option: 'A', strategy: 'rename', dryRun: false, buildTimeout: '30m', heartbeatTimeout: '2m' });
    expect(p.approval).toEqual({ policy: 'destructive', approvers: [], timeout: '4h' });
  });

  it('names every bad field in one error', () => {
    try {
      parseInput(migrateWorkspaceInputSchema, { ...valid, owner: '', targetVersionId: 'v2', option: 'C', approval: { timeout: 'soon' } });
      throw new Error('expected an InputError');
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      const msg = (err as Error).message;
      expect(msg).toMatch(/owner: owner is required/);
      expect(msg).toMatch(/targetVersionId: targetVersionId must be a template version UUID/);
      expect(msg).toMatch(/option:/);
      expect(msg).toMatch(/approval\.timeout: use a duration/);
    }
  });

  it('refuses names that could not be a Coder name', () => {
    expect(() => parseInput(migrateWorkspaceInputSchema, { ...valid, workspace: 'dev; rm -rf /' })).toThrow(/workspace: workspace may hold/);
  });

  it('builds one workflow id per workspace', () => {
    expect(workspaceWorkflowId('k8s-dev', 'alice', 'dev')).toBe('wsmigrate/k8s-dev/alice/dev');
  });
});

describe('migrateTemplate input', () => {
  it('defaults to promoting after approval', () => {
    const p = parseInput(migrateTemplateInputSchema, { organization: 'coder', template: 'k8s-dev' });
    expect(p).toMatchObject({ stopBeforePromote: false, dryRun: false, renameDifferent: false });
    expect(p.approval.policy).toBe('destructive');
  });
  it('requires the organization', () => {
    expect(() => parseInput(migrateTemplateInputSchema, { template: 'k8s-dev' })).toThrow(/organization: organization is required/);
  });
});
