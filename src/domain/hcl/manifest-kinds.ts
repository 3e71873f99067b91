import { attributeNamed } from './body-parser';
import { plainString, valuesOfKey } from './expression-keys';
import type { ResourceDeclaration } from './config-outline';
import { resourceBodiesInJson } from './json-occurrences';
import type { JsonNode } from './json-tree';
import type { Token } from './lexer';
import { declaredBlock, type ConfigFile, type TemplateConfig } from './template-config';

/**
 * The Kubernetes kinds whose loss is a lost volume, as PVC and PV resource types are. A CDI
 * `DataVolume` (KubeVirt's VM disks) owns the claim it fills: deleting it deletes the claim.
 */
const PERSISTENT_KINDS = new Set(['PersistentVolumeClaim', 'PersistentVolume', 'DataVolume']);

/**
 * Kinds that make claims of their own in their namespace, which outlive them (a StatefulSet's
 * volumeClaimTemplates, a KubeVirt VirtualMachine's dataVolumeTemplates) but not their namespace.
 */
const CLAIM_MAKING_KINDS = new Set(['StatefulSet', 'VirtualMachine']);

/**
 * `kubernetes_manifest` resources whose `manifest` is a PersistentVolumeClaim or PersistentVolume:
 * the same volume as a `kubernetes_persistent_volume_claim`, under a type no rename touches but a
 * replacement destroys all the same. Read when the manifest is written out as an object with a plain
 * `kind` string, or as YAML in a heredoc; one read from a file (`yamldecode(file(…))`) cannot be read
 * here (mark it `# wsmigrate:protect`).
 * Its state holds no uid (the provider keeps `object.metadata.uid` null, seen on the real provider), so
 * its loss is found by the plan guard and the build's log, not by the post-build uid comparison.
 */
export function persistentManifests(model: TemplateConfig): ResourceDeclaration[] {
  return manifestsOfKinds(model, PERSISTENT_KINDS);
}

/** `kubernetes_manifest` resources of a kind that makes claims in its namespace: the namespace holds data. */
export function claimMakingManifests(model: TemplateConfig): ResourceDeclaration[] {
  return manifestsOfKinds(model, CLAIM_MAKING_KINDS);
}

function manifestsOfKinds(model: TemplateConfig, kinds: ReadonlySet<string>): ResourceDeclaration[] {
  const out: ResourceDeclaration[] = [];
  for (const f of model.configFiles) {
    for (const r of f.outline.resources) {
      if (r.mode !== 'managed' || r.type !== 'kubernetes_manifest') continue;
      const kind = f.syntax === 'native' ? nativeKind(f, r) : jsonKind(f.tree, r);
      if (kind !== undefined && kinds.has(kind)) out.push(r);
    }
  }
  return out;
}

function nativeKind(f: ConfigFile & { syntax: 'native' }, r: ResourceDeclaration): string | undefined {
  const block = declaredBlock(f, r);
  const manifest = block ? attributeNamed(block.body, 'manifest') : undefined;
  if (!manifest) return undefined;
  return topLevelKind(f.parsed.tokens.slice(manifest.exprStart, manifest.exprEnd));
}

/**
 * The manifest's `kind`: the plain string given to `kind` among the keys of the outermost object
 * literal (`kind = "…"`, `"kind": "…"`; a function call around it, such as `merge(local.base, {…})`,
 * does not hide it), or the top-level `kind:` line of a YAML heredoc (`yamldecode(<<-EOT … EOT)`).
 */
function topLevelKind(t: readonly Token[]): string | undefined {
  return objectKind(t) ?? yamlHeredocKind(t);
}

function objectKind(t: readonly Token[]): string | undefined {
  return valuesOfKey(t, 'kind', { depth: 1 })
    .map(plainString)
    .find((kind) => kind !== undefined);
}

const YAML_KIND = /^( *)kind: *["']?([A-Za-z]+)["']? *$/;

/** `kind:` on a line of the heredoc's least indentation (YAML's top level). */
function yamlHeredocKind(t: readonly Token[]): string | undefined {
  const open = t.findIndex((x) => x.kind === 'heredocOpen');
  if (open < 0) return undefined;
  const close = t.findIndex((x, i) => i > open && x.kind === 'heredocClose');
  const lines = t
    .slice(open + 1, close < 0 ? t.length : close)
    .map((x) => (x.kind === 'literal' ? x.text : 'x'))
    .join('')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const indent = Math.min(...lines.map((l) => l.length - l.trimStart().length));
  for (const line of lines) {
    const m = YAML_KIND.exec(line);
    if (m && m[1].length === indent) return m[2];
  }
  return undefined;
}

function jsonKind(root: JsonNode, r: ResourceDeclaration): string | undefined {
  for (const body of resourceBodiesInJson(root, r)) {
    const manifest = body.entries.find((e) => e.key.value === 'manifest')?.value;
    const kind = manifest?.kind === 'object' ? manifest.entries.find((e) => e.key.value === 'kind')?.value : undefined;
    if (kind?.kind === 'string') return kind.value;
  }
  return undefined;
}
