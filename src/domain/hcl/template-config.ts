import type { HclBlock } from './body-parser';
import { outlineHcl, outlineJson, type ConfigOutline, type ResourceDeclaration } from './config-outline';
import { isGuardFile } from './guard-blocks';
import { isZeroTouchFile } from './zero-touch-blocks';
import { parseJsonTree, type JsonNode } from './json-tree';
import { ModuleTree, dirOf } from './module-tree';
import { parseHclFile, type ParsedHcl } from './native-occurrences';
import { syntaxOf, type TemplateFile } from './template-file';

/** One Terraform file of a template, parsed once and shared by the rewriter and the annotation finder. */
export type ConfigFile =
  | { readonly path: string; readonly syntax: 'native'; readonly parsed: ParsedHcl; readonly outline: ConfigOutline }
  | { readonly path: string; readonly syntax: 'json'; readonly tree: JsonNode; readonly outline: ConfigOutline };

export interface TemplateConfig {
  /** Terraform files, in input order; guard files and pass-through files are not among them. */
  readonly configFiles: readonly ConfigFile[];
  /** Paths of files that carry the guard header. */
  readonly guardFiles: readonly string[];
  readonly modules: ModuleTree;
}

export function readTemplateConfig(files: readonly TemplateFile[]): TemplateConfig {
  const configFiles: ConfigFile[] = [];
  const guardFiles: string[] = [];
  for (const file of files) {
    const kind = syntaxOf(file.path);
    if (kind.syntax === 'other') continue;
    if (kind.syntax === 'native' && (isGuardFile(file.content) || isZeroTouchFile(file.content))) {
      guardFiles.push(file.path);
      continue;
    }
    if (kind.syntax === 'native') {
      const parsed = parseHclFile(file.path, file.content, kind.dialect);
      configFiles.push({ path: file.path, syntax: 'native', parsed, outline: declarationsOnly(file.path, outlineHcl(parsed)) });
    } else {
      const tree = parseJsonTree(file.content, file.path);
      configFiles.push({ path: file.path, syntax: 'json', tree, outline: declarationsOnly(file.path, outlineJson(tree, file.path)) });
    }
  }
  const configDirs = new Set(configFiles.filter((f) => isConfiguration(f)).map((f) => dirOf(f.path)));
  const modules = new ModuleTree(
    configFiles.flatMap((f) => f.outline.moduleCalls),
    configDirs,
  );
  return { configFiles, guardFiles, modules };
}

/** Blocks in override files only patch blocks declared elsewhere: they declare nothing new. */
function declarationsOnly(path: string, outline: ConfigOutline): ConfigOutline {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const isOverride = /^(override|.*_override)\.tf(\.json)?$/.test(name);
  return isOverride ? { ...outline, resources: [] } : outline;
}

function isConfiguration(f: ConfigFile): boolean {
  return f.syntax === 'json' || f.parsed.dialect === 'config';
}

/** The block a native file declares `r` with. */
export function declaredBlock(f: ConfigFile & { syntax: 'native' }, r: ResourceDeclaration): HclBlock | undefined {
  return f.parsed.items.find((it): it is HclBlock => it.kind === 'block' && it.headerIndex === r.headerIndex);
}
