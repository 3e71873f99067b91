import { parse } from '@cdktf/hcl2json';
import { referencedResources } from './expression';
import type { ArchiveFile } from './tar-archive';

export type CountSpec =
  | { kind: 'single' }
  | { kind: 'literal'; value: number }
  | { kind: 'startCount' }
  | { kind: 'expression'; expression: string };

export interface ConfigResource {
  type: string;
  name: string;
  file: string;
  count: CountSpec;
  /** The block's arguments and nested blocks as hcl2json renders them, without meta-arguments. */
  body: Record<string, unknown>;
  /** TYPE.NAME of resources this one references or depends on. */
  dependsOn: string[];
  hasForEach: boolean;
}

export interface RemovedBlock {
  /** e.g. kubernetes_persistent_volume_claim.home */
  from: string;
  destroy: boolean;
}

/** The part of a template's root module the simulated provisioner plans with. */
export interface TemplateConfig {
  resources: ConfigResource[];
  removed: RemovedBlock[];
  /** `import { to = ... }` targets (addresses as written, e.g. kubernetes_deployment_v1.main[0]). */
  imports: string[];
  dataSources: { type: string; name: string; body?: Record<string, unknown> }[];
  /** Each variable's value for a build: the version's stored value (see deployment's import), else its default. */
  variables: Record<string, unknown>;
  /** The `variable` blocks as declared: what Coder's import stores per version (template_version_variables). */
  variableSpecs: TemplateVariableSpec[];
  locals: Record<string, unknown>;
}

export interface TemplateVariableSpec {
  name: string;
  /** As written without the interpolation: `string`, `number`, `bool`, `list(string)`… (`string` when absent). */
  type: string;
  description: string;
  sensitive: boolean;
  /** Absent: the variable is required (Coder refuses an import that gives it no value). */
  defaultValue?: unknown;
}

const META_ARGUMENTS = new Set(['count', 'for_each', 'depends_on', 'lifecycle', 'provider', 'provisioner', 'connection']);

type Blocks = Record<string, Record<string, Record<string, unknown>[]>>;

function stripInterpolation(text: unknown): string {
  return typeof text === 'string' ? text.replace(/^\$\{\s*/, '').replace(/\s*\}$/, '') : '';
}

function countSpecOf(raw: unknown): CountSpec {
  if (raw === undefined) return { kind: 'single' };
  if (typeof raw === 'number') return { kind: 'literal', value: raw };
  const expression = stripInterpolation(raw);
  if (/^\d+$/.test(expression)) return { kind: 'literal', value: Number(expression) };
  // Coder templates gate compute on start_count; any expression that reads it follows the transition.
  if (/data\.coder_workspace\.[A-Za-z_][\w-]*\.start_count/.test(expression)) return { kind: 'startCount' };
  return { kind: 'expression', expression };
}

function isRootTerraformFile(name: string): boolean {
  const clean = name.replace(/^\.\//, '');
  return !clean.includes('/') && clean.endsWith('.tf');
}

/** Parses the root module's .tf files of a template archive; a syntax error rejects with hcl2json's message (file:line). */
export async function parseTemplateConfig(files: readonly ArchiveFile[]): Promise<TemplateConfig> {
  const config: TemplateConfig = { resources: [], removed: [], imports: [], dataSources: [], variables: {}, variableSpecs: [], locals: {} };
  const tfFiles = files.filter((f) => isRootTerraformFile(f.name)).sort((a, b) => a.name.localeCompare(b.name));
  if (tfFiles.length === 0) throw new Error('The template archive has no .tf files at its root.');
  for (const file of tfFiles) {
    const fileName = file.name.replace(/^\.\//, '');
    const parsed = (await parse(fileName, file.content)) as Record<string, unknown>;
    const resources = (parsed.resource ?? {}) as Blocks;
    for (const [type, byName] of Object.entries(resources)) {
      for (const [name, blocks] of Object.entries(byName)) {
        const block = blocks[0] ?? {};
        const body = Object.fromEntries(Object.entries(block).filter(([k]) => !META_ARGUMENTS.has(k)));
        const explicitDeps = Array.isArray(block.depends_on) ? block.depends_on.map(stripInterpolation) : [];
        const dependsOn = [...new Set([...explicitDeps, ...referencedResources(body)])].filter((d) => d !== `${type}.${name}`);
        config.resources.push({
          type,
          name,
          file: fileName,
          count: countSpecOf(block.count),
          body,
          dependsOn,
          hasForEach: block.for_each !== undefined,
        });
      }
    }
    for (const [type, byName] of Object.entries((parsed.data ?? {}) as Blocks)) {
      for (const [name, blocks] of Object.entries(byName)) config.dataSources.push({ type, name, body: (blocks as Record<string, unknown>[])[0] ?? {} });
    }
    for (const removed of (parsed.removed ?? []) as Record<string, unknown>[]) {
      const lifecycle = (removed.lifecycle as Record<string, unknown>[] | undefined)?.[0];
      config.removed.push({ from: stripInterpolation(removed.from), destroy: lifecycle?.destroy !== false });
    }
    for (const imported of (parsed.import ?? []) as Record<string, unknown>[]) config.imports.push(stripInterpolation(imported.to));
    for (const [name, blocks] of Object.entries((parsed.variable ?? {}) as Record<string, Record<string, unknown>[]>)) {
      const block = blocks[0] ?? {};
      config.variables[name] = block.default;
      config.variableSpecs.push({
        name,
        type: block.type === undefined ? 'string' : stripInterpolation(block.type) || String(block.type),
        description: typeof block.description === 'string' ? block.description : '',
        sensitive: block.sensitive === true,
        ...(block.default !== undefined ? { defaultValue: block.default } : {}),
      });
    }
    for (const locals of (parsed.locals ?? []) as Record<string, unknown>[]) Object.assign(config.locals, locals);
  }
  return config;
}
