import { attributeNamed, type HclBlock, type HclItem } from './body-parser';
import type { ResourceDeclaration } from './config-outline';
import { objectsOf, resourceBodiesInJson } from './json-occurrences';
import type { JsonNode, JsonObject } from './json-tree';
import type { Token } from './lexer';
import { plainString, valuesOfKey } from './expression-keys';
import { declaredBlock, type ConfigFile, type TemplateConfig } from './template-config';

const STATEFUL_SET_TYPES = new Set(['kubernetes_stateful_set', 'kubernetes_stateful_set_v1']);

/**
 * A stateful set with a `volume_claim_template` makes claims Terraform never sees: Kubernetes' stateful
 * set controller creates them, and they live in the set's namespace. What happens to them when the set
 * is deleted is the set's `persistent_volume_claim_retention_policy.when_deleted` (KEP-1847, GA in
 * Kubernetes 1.32): `Retain` (Kubernetes' and the provider's default) keeps them, and a re-created set
 * takes them back by name; `Delete` has the garbage collector delete them with the set.
 */
export interface ClaimMakingSet {
  readonly resource: ResourceDeclaration;
  /** True unless the template says `when_deleted = "Retain"` or says nothing: an expression counts as Delete (fail closed). */
  readonly deletesClaims: boolean;
}

/** The template's stateful sets that declare a volume claim template, each with whether deleting it deletes its claims. */
export function claimMakingSets(model: TemplateConfig): ClaimMakingSet[] {
  const out: ClaimMakingSet[] = [];
  for (const f of model.configFiles) {
    for (const r of f.outline.resources) {
      if (r.mode !== 'managed' || !STATEFUL_SET_TYPES.has(r.type)) continue;
      const spec = f.syntax === 'native' ? nativeSpec(f, r) : jsonSpec(f.tree, r);
      if (spec?.hasClaimTemplate) out.push({ resource: r, deletesClaims: spec.whenDeleted !== 'Retain' });
    }
  }
  return out;
}

interface SetSpec {
  readonly hasClaimTemplate: boolean;
  /** `Retain`, `Delete`, another literal, or `expression` when it is not a plain string; `Retain` when not set. */
  readonly whenDeleted: string;
}

function nativeSpec(f: ConfigFile & { syntax: 'native' }, r: ResourceDeclaration): SetSpec | undefined {
  const block = declaredBlock(f, r);
  if (!block) return undefined;
  const specs = bodiesNamed(block.body, 'spec');
  const hasClaimTemplate = specs.some((s) => bodiesNamed(s, 'volume_claim_template').length > 0);
  const policies = specs.flatMap((s) => bodiesNamed(s, 'persistent_volume_claim_retention_policy'));
  const values = policies.flatMap((p) => {
    const attr = attributeNamed(p, 'when_deleted');
    return attr ? [plainString(f.parsed.tokens.slice(attr.exprStart, attr.exprEnd)) ?? 'expression'] : [];
  });
  // The plugin-framework rewrite of the provider (StatefulSetV1 on its newer main; the mirror's build still
  // takes the block, checked with terraform validate) makes the policy a list attribute:
  // `persistent_volume_claim_retention_policy = [{ when_deleted = "Delete" }]`.
  for (const s of specs) {
    const attr = attributeNamed(s, 'persistent_volume_claim_retention_policy');
    if (attr) values.push(...whenDeletedInExpression(f.parsed.tokens.slice(attr.exprStart, attr.exprEnd)));
  }
  return { hasClaimTemplate, whenDeleted: strictest(values) };
}

/**
 * The `when_deleted` values of a written-out list or object (`[{ when_deleted = "Delete" }]`); a value
 * that is not a plain string, or a policy given whole as a reference (`var.policy`), is `expression`.
 */
function whenDeletedInExpression(expr: readonly Token[]): string[] {
  if (!expr.some((x) => x.kind === 'punct' && x.text === '{')) return ['expression'];
  return valuesOfKey(expr, 'when_deleted').map((v) => plainString(v) ?? 'expression');
}

/** The bodies of `name { … }` blocks, and of the `content` of `dynamic "name" { … }` ones. */
function bodiesNamed(items: readonly HclItem[], name: string): (readonly HclItem[])[] {
  return items.flatMap((it) => {
    if (it.kind !== 'block') return [];
    if (it.type.text === name) return [it.body];
    if (it.type.text === 'dynamic' && it.labels[0]?.value === name) {
      return it.body.filter((c): c is HclBlock => c.kind === 'block' && c.type.text === 'content').map((c) => c.body);
    }
    return [];
  });
}

/** Retain only when every value the template gives says so: one that may delete wins. */
function strictest(values: readonly string[]): string {
  return values.find((v) => v !== 'Retain') ?? 'Retain';
}

function jsonSpec(root: JsonNode, r: ResourceDeclaration): SetSpec | undefined {
  const bodies = resourceBodiesInJson(root, r);
  if (bodies.length === 0) return undefined;
  const specs = bodies.flatMap((b) => jsonBodiesNamed(b, 'spec'));
  const hasClaimTemplate = specs.some((s) => jsonBodiesNamed(s, 'volume_claim_template').length > 0);
  const values = specs
    .flatMap((s) => jsonBodiesNamed(s, 'persistent_volume_claim_retention_policy'))
    .flatMap((p) => p.entries.filter((e) => e.key.value === 'when_deleted'))
    // A JSON string may be a template ("${var.policy}"): only the bare words are read as what they say.
    .map((e) => (e.value.kind === 'string' && !e.value.value.includes('${') ? e.value.value : 'expression'));
  return { hasClaimTemplate, whenDeleted: strictest(values) };
}

/** Nested blocks in JSON syntax: `"name": {…}` or `[{…}]`, and `"dynamic": {"name": {"content": {…}}}`. */
function jsonBodiesNamed(body: JsonObject, name: string): JsonObject[] {
  const direct = body.entries.filter((e) => e.key.value === name).flatMap((e) => objectsOf(e.value));
  const dynamic = body.entries
    .filter((e) => e.key.value === 'dynamic')
    .flatMap((e) => objectsOf(e.value))
    .flatMap((d) => d.entries.filter((e) => e.key.value === name))
    .flatMap((e) => objectsOf(e.value))
    .flatMap((d) => d.entries.filter((e) => e.key.value === 'content'))
    .flatMap((e) => objectsOf(e.value));
  return [...direct, ...dynamic];
}
