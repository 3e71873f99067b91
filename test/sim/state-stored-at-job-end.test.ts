import { stateStoredAtJobEnd } from '../../src/sim/stored-state';

/** What Coder keeps for a build when its job ends (provisionerdserver CompleteJob / FailJob). */
describe('simulator: the state Coder stores when a job ends', () => {
  const created = Buffer.from('{"serial":4,"resources":[{"type":"kubernetes_persistent_volume_claim_v1"}]}');

  test('a failed job whose state file came back empty (Terraform killed mid-write) leaves the state the build was created with', () => {
    expect(stateStoredAtJobEnd(created, { state: Buffer.alloc(0), error: 'terraform apply timed out' })).toBe(created);
  });

  test('a failed job that wrote a state stores it: what the apply created before it failed stays in Coder', () => {
    const partial = Buffer.from('{"serial":5,"resources":[{"type":"kubernetes_deployment_v1"}]}');
    expect(stateStoredAtJobEnd(created, { state: partial, error: 'context deadline exceeded' })).toBe(partial);
  });

  test('a job that completed stores its state, empty too (a delete leaves none)', () => {
    const empty = Buffer.alloc(0);
    expect(stateStoredAtJobEnd(created, { state: empty })).toBe(empty);
  });
});
