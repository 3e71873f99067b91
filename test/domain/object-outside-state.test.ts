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

  it('never advises deleting a persistent volume either, singular or plural; every other kind gets the delete', () => {
    for (const resource of ['persistentvolumes', 'persistentvolume', 'persistentvolumeclaim', 'persistentvolumeclaims']) {
      const advice = outsideStateAdvice({ resource, name: 'pv-home' }, undefined, { buildNumber: 5, rerun: 'run it again' });
      expect(advice).not.toMatch(/kubectl delete/);
      expect(advice).toContain('Do not delete it: a volume holds data. Keep it and import it into the state at the address the template gives it (ID <namespace>/pv-home).');
    }
    // A kind whose name only contains the word is no volume (the test anchors at the start).
    expect(outsideStateAdvice({ resource: 'mypersistentvolumes.example.com', name: 'x' }, undefined, { buildNumber: 5, rerun: 'again' })).toContain('`kubectl delete mypersistentvolumes.example.com x -n <namespace>`');
  });

  it("takes the object from a managed kubernetes resource only, never a data source's read of it, and keeps an unknown namespace unknown", () => {
    const resources: StateResourceView[] = [
      { mode: 'data', type: 'kubernetes_persistent_volume_claim_v1', name: 'seen', instances: [{ attributes: { metadata: [{ name: 'coder-7f3a-home', namespace: 'elsewhere', uid: 'u-data' }] } }] },
      { mode: 'managed', type: 'coder_agent', name: 'main', instances: [{ attributes: { metadata: [{ name: 'coder-7f3a-home' }] } }] },
      { mode: 'managed', type: 'kubernetes_persistent_volume_claim_v1', name: 'home', instances: [{ index_key: 'a', attributes: { metadata: [{ name: 'coder-7f3a-home', namespace: '', uid: 'u-1' }] } }] },
      { mode: 'managed', type: 'kubernetes_pod_v1', name: 'bare', instances: [{ attributes: { metadata: { name: 'not-a-list' } } }, { attributes: {} }, { index_key: 1 }] },
    ];
    expect(findNamedObject(resources, 'coder-7f3a-home')).toEqual({ address: 'kubernetes_persistent_volume_claim_v1.home["a"]', uid: 'u-1' });
    expect(findNamedObject(resources, 'not-a-list')).toBeUndefined();
    expect(findNamedObject([{ mode: 'managed', type: 'kubernetes_secret_v1', name: 's', module: 'module.ws', instances: [{ attributes: { metadata: [{ name: 'n', namespace: 7, uid: 8 }] } }] }], 'n')).toEqual({ address: 'module.ws.kubernetes_secret_v1.s' });
  });

  it('names the build whose state held it, its uid and address, and the address Terraform tried when the error gives none', () => {
    const advice = outsideStateAdvice({ resource: 'deployments.apps', name: 'coder-7f3a' }, { buildNumber: 3, address: 'kubernetes_deployment_v1.main[0]', namespace: 'team-a', uid: 'u-1' }, { buildNumber: 5, rerun: 'run it again' });
    expect(advice).toContain(
      "already exists, and the state build #5 ran on does not hold it (nothing at kubernetes_deployment_v1.main[0]): it is left in the cluster outside Terraform's state; the state of build #3 held it (uid u-1) at kubernetes_deployment_v1.main[0], a later build's state dropped it",
    );
    expect(advice).toContain("or keep it and bring it into the state: `terraform import 'kubernetes_deployment_v1.main[0]' team-a/coder-7f3a`");
    const noUid = outsideStateAdvice({ resource: 'services', name: 's', address: 'kubernetes_service_v1.s' }, { buildNumber: 2, address: 'kubernetes_service_v1.s' }, { buildNumber: 4, rerun: 'again' });
    expect(noUid).toContain('the state of build #2 held it at kubernetes_service_v1.s,');
    expect(parseAlreadyExists('services "s" already exists')).toEqual({ resource: 'services', name: 's' });
  });
});
