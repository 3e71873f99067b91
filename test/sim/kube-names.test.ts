import { invalidObjectName } from '../../src/sim/kube-names';

// apimachinery's IsDNS1123Subdomain, which the hashicorp/kubernetes provider applies to every metadata.name.
describe('simulator: object names as Kubernetes takes them', () => {
  it.each(['coder-4f1c-home', 'a', 'alice.liddell', 'x'.repeat(253), '0-9'])('takes %s', (name) => {
    expect(invalidObjectName(name)).toBeUndefined();
  });

  it.each(['Alice Liddell', 'alice liddell-home', 'Home', '-home', 'home-', 'home.', '.home', 'home_dir', '', 'a..b'])('refuses %j with the API server\'s reason', (name) => {
    expect(invalidObjectName(name)).toMatch(/^a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character/);
  });

  it('refuses a name longer than 253 characters, saying so', () => {
    expect(invalidObjectName('x'.repeat(254))).toBe('must be no more than 253 characters');
  });
});
