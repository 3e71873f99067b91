import { identityFromConfig, type Plan } from './build-plan';
import type { Resolver } from './expression';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX = 253;

/**
 * Why Kubernetes refuses this object name, in apimachinery's words (pkg/util/validation
 * IsDNS1123Subdomain), or undefined when it is a valid one. The hashicorp/kubernetes provider checks
 * every `metadata.name` with it (kubernetes/validators.go validateName: NameIsDNSSubdomain) while
 * Terraform plans, so a name the API server would refuse fails the build before anything is applied.
 */
export function invalidObjectName(name: string): string | undefined {
  const problems: string[] = [];
  if (name.length > DNS1123_SUBDOMAIN_MAX) problems.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!DNS1123_SUBDOMAIN.test(name)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems.length ? problems.join(', ') : undefined;
}

export interface InvalidName {
  address: string;
  file: string;
  type: string;
  resourceName: string;
  name: string;
  problem: string;
}

/** The first object of the plan (to create, replace or keep) whose evaluated name Kubernetes would refuse. */
export function firstInvalidName(plan: Plan, resolve: Resolver): InvalidName | undefined {
  for (const change of plan.changes) {
    if (change.action !== 'create' && change.action !== 'replace' && change.action !== 'keep') continue;
    const { config } = change;
    const identity = identityFromConfig(config.type, config.body, resolve);
    if (!identity) continue;
    const problem = invalidObjectName(identity.name);
    if (problem) return { address: change.address, file: config.file, type: config.type, resourceName: config.name, name: identity.name, problem };
  }
  return undefined;
}
