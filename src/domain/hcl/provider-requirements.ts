import { blocksOfType, type HclBlock } from './body-parser';
import { isTrivia, type Token } from './lexer';
import { parseHclFile, type ParsedHcl } from './native-occurrences';
import type { ConfigFile } from './template-config';
import type { TemplateFile } from './template-file';
import { admitsVersionAtLeast } from './version-constraint';

/** hashicorp/kubernetes 2.7.0 (November 30, 2021) is the first release with the versioned (_v1) names. */
const V1_TYPES_SINCE = [2, 7, 0] as const;

const LOCK_FILE = '.terraform.lock.hcl';

/**
 * Why a template cannot build once its types are renamed to _v1, or undefined: its required_providers
 * keep hashicorp/kubernetes below 2.7.0, or the lock file in its root folder (which `terraform init`
 * honours there, as Coder runs it) selects such a release. Without this, the rewritten version would
 * fail in Coder ("The provider hashicorp/kubernetes does not support resource type …").
 */
export function providerWithoutV1Types(configFiles: readonly ConfigFile[], files: readonly TemplateFile[]): string | undefined {
  const tooOld = configFiles.flatMap((f) =>
    f.syntax === 'native' && f.parsed.dialect === 'config'
      ? kubernetesProviderConstraints(f.parsed)
          .filter((c) => !admitsVersionAtLeast(c.value, V1_TYPES_SINCE))
          .map((c) => `${f.path}:${c.line}: required_providers pins hashicorp/kubernetes to "${c.value}"`)
      : [],
  );
  if (tooOld.length > 0) {
    return (
      `${tooOld.join('; ')}: no release it allows has the _v1 types (they came with 2.7.0), so the rewritten template would fail to build. ` +
      'Allow hashicorp/kubernetes >= 2.7.0 there (e.g. "~> 2.7") and run again; from 1.x that is a major upgrade of its own: try it on one workspace first'
    );
  }
  const lock = files.find((f) => f.path === LOCK_FILE);
  const locked = lock && lockedKubernetesVersion(lock.path, lock.content);
  if (locked && !admitsVersionAtLeast(`= ${locked.value}`, V1_TYPES_SINCE)) {
    return (
      `${LOCK_FILE}:${locked.line}: the template's lock file selects hashicorp/kubernetes ${locked.value}, which has no _v1 types (they came with 2.7.0), ` +
      'so the rewritten template would fail to build. Update the lock file (terraform init -upgrade, with a constraint that allows >= 2.7.0) or remove it, and run again'
    );
  }
  return undefined;
}

/** One `version` constraint given to hashicorp/kubernetes in a `required_providers` block. */
export interface KubernetesProviderConstraint {
  readonly line: number;
  readonly value: string;
}

/**
 * The literal `version` constraints a file's `terraform { required_providers { … } }` blocks give
 * the hashicorp/kubernetes provider: entries whose `source` names it, or a `kubernetes` entry
 * without a source (Terraform's default namespace), in the object form or the legacy string form.
 */
export function kubernetesProviderConstraints(parsed: ParsedHcl): KubernetesProviderConstraint[] {
  return blocksOfType(parsed.items, 'terraform')
    .flatMap((t) => blocksOfType(t.body, 'required_providers'))
    .flatMap((rp: HclBlock) =>
      rp.body.flatMap((entry) => {
        if (entry.kind !== 'attribute') return [];
        const toks = parsed.tokens.slice(entry.exprStart, entry.exprEnd).filter((t) => !isTrivia(t));
        if (toks[0]?.kind === 'quoteOpen') {
          const legacy = literalAt(toks, 0);
          return entry.name.text === 'kubernetes' && legacy ? [{ line: entry.name.line, value: legacy.text }] : [];
        }
        const source = valueOf(toks, 'source');
        const isKubernetes = source ? /^(registry\.terraform\.io\/)?hashicorp\/kubernetes$/i.test(source.text) : entry.name.text === 'kubernetes';
        const version = valueOf(toks, 'version');
        return isKubernetes && version ? [{ line: version.line, value: version.text }] : [];
      }),
    );
}

/** The literal string of `key = "…"` among an object constructor's tokens. */
function valueOf(toks: readonly Token[], key: string): Token | undefined {
  for (let i = 0; i + 2 < toks.length; i++) {
    if (toks[i].kind === 'ident' && toks[i].text === key && toks[i + 1].kind === 'punct' && (toks[i + 1].text === '=' || toks[i + 1].text === ':')) return literalAt(toks, i + 2);
  }
  return undefined;
}

function literalAt(toks: readonly Token[], i: number): Token | undefined {
  return toks[i]?.kind === 'quoteOpen' && toks[i + 1]?.kind === 'literal' && toks[i + 2]?.kind === 'quoteClose' ? toks[i + 1] : undefined;
}

/**
 * The hashicorp/kubernetes version a dependency lock file (`.terraform.lock.hcl`, which a template
 * may carry and `terraform init` then honours) selects, when it holds one.
 */
export function lockedKubernetesVersion(path: string, content: string): KubernetesProviderConstraint | undefined {
  let parsed: ParsedHcl;
  try {
    parsed = parseHclFile(path, content, 'config');
  } catch {
    return undefined; // a lock file Terraform could not read either: init will say so
  }
  for (const block of blocksOfType(parsed.items, 'provider')) {
    if (!/^(registry\.terraform\.io\/)?hashicorp\/kubernetes$/i.test(block.labels[0]?.value ?? '')) continue;
    const version = block.body.find((it) => it.kind === 'attribute' && it.name.text === 'version');
    if (version?.kind !== 'attribute') continue;
    const lit = literalAt(parsed.tokens.slice(version.exprStart, version.exprEnd).filter((t) => !isTrivia(t)), 0);
    if (lit) return { line: lit.line, value: lit.text };
  }
  return undefined;
}
