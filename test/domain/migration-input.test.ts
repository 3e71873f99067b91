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
    const p = parseInput(migrateWorkspaceInputSchema, { ...valid, approval: { approvers: ['alice'] } });
    expect(p).toMatchObject({ option: 'A', strategy: 'rename', dryRun: false, buildTimeout: '30m', heartbeatTimeout: '2m' });
    expect(p.approval).toEqual({ policy: 'destructive', approvers: ['alice'], anyApprover: false, timeout: '4h' });
  });

  it('refuses approvals with no approver named, saying how to name one, unless --any-approver was chosen', () => {
    expect(() => parseInput(migrateWorkspaceInputSchema, valid)).toThrow(/approval\.approvers: .*--approver.*WSMIGRATE_APPROVERS.*--any-approver/);
    expect(() => parseInput(migrateWorkspaceInputSchema, { ...valid, approval: { policy: 'all', approvers: [] } })).toThrow(/--approver/);
    expect(parseInput(migrateWorkspaceInputSchema, { ...valid, approval: { anyApprover: true } }).approval).toMatchObject({ approvers: [], anyApprover: true });
    // No gate asks under policy none, so no approver is needed.
    expect(parseInput(migrateWorkspaceInputSchema, { ...valid, approval: { policy: 'none' } }).approval.policy).toBe('none');
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
    const p = parseInput(migrateTemplateInputSchema, { organization: 'coder', template: 'k8s-dev', approval: { approvers: ['alice'] } });
    expect(p).toMatchObject({ stopBeforePromote: false, dryRun: false, renameDifferent: false });
    expect(p.approval.policy).toBe('destructive');
  });
  it('requires the organization', () => {
    expect(() => parseInput(migrateTemplateInputSchema, { template: 'k8s-dev' })).toThrow(/organization: organization is required/);
  });
});
