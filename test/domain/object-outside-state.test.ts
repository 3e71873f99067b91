import { findNamedObject, outsideStateAdvice, parseAlreadyExists } from '../../src/domain/object-outside-state';
import type { StateResourceView } from '../../src/domain/state';

describe('a build failed on a Kubernetes object its state does not hold', () => {
  it("reads the object from the real provider's error and from the simulator's", () => {
    // hashicorp/kubernetes passes the API server's StatusReasonAlreadyExists through, with Terraform's diagnostic around it.
    const real = 'Error: deployments.apps "coder-7f3a" already exists\n\n  with kubernetes_deployment_v1.main[0],\n  on main.tf line 75, in resource "kubernetes_deployment_v1" "main":';
    expect(parseAlreadyExists(real)).toEqual({ resource: 'deployments.apps', name: 'coder-7f3a', address: 'kubernetes_deployment_v1.main[0]' });
    expect(parseAlreadyExists('deployments "coder-7f3a" already exists (AlreadyExists), with module.ws.kubernetes_deployment_v1.main on main.tf')).toEqual({
      resource: 'deployments',
      name: 'coder-7f3a',
      address: 'module.ws.kubernetes_deployment_v1.main',
    });
    expect(parseAlreadyExists('Error: Unauthorized')).toBeUndefined();
    expect(parseAlreadyExists('Workspace "dev" already exists.')).toBeUndefined();
  });

  it('finds where a state held the object by its metadata name, with namespace and uid', () => {
    const resources: StateResourceView[] = [
      { mode: 'data', type: 'coder_workspace', name: 'me', instances: [{ attributes: { id: 'w' } }] },
      { mode: 'managed', type: 'kubernetes_deployment_v1', name: 'main', instances: [{ index_key: 0, attributes: { metadata: [{ name: 'coder-7f3a', namespace: 'team-a', uid: 'u-1' }] } }] },
    ];
    expect(findNamedObject(resources, 'coder-7f3a')).toEqual({ address: 'kubernetes_deployment_v1.main[0]', namespace: 'team-a', uid: 'u-1' });
    expect(findNamedObject(resources, 'coder-other')).toBeUndefined();
  });

  it('says what to run, and never advises deleting a volume', () => {
    const deployment = outsideStateAdvice({ resource: 'deployments.apps', name: 'coder-7f3a', address: 'kubernetes_deployment_v1.main[0]' }, { buildNumber: 3, address: 'kubernetes_deployment_v1.main[0]', namespace: 'team-a', uid: 'u-1' }, { buildNumber: 5, rerun: 'run it again' });
    expect(deployment).toContain("Kubernetes object deployments.apps/coder-7f3a in namespace 'team-a' already exists, and the state build #5 ran on does not hold it");
    expect(deployment).toContain('`kubectl delete deployments.apps coder-7f3a -n team-a`');
    expect(deployment).toContain("`terraform import 'kubernetes_deployment_v1.main[0]' team-a/coder-7f3a`");
    expect(deployment).toMatch(/Then run it again$/);

    const claim = outsideStateAdvice({ resource: 'persistentvolumeclaims', name: 'coder-7f3a-home' }, undefined, { buildNumber: 5, rerun: 'run it again' });
    expect(claim).not.toMatch(/kubectl delete/);
    expect(claim).toContain('Do not delete it: a volume holds data.');
    // Its namespace was in no recent state: how to find it, not a guess.
    expect(claim).toContain('`kubectl get persistentvolumeclaims -A --field-selector metadata.name=coder-7f3a-home`');
  });
});
