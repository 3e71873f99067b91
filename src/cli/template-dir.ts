import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { InvalidArgumentError } from 'commander';

const SKIPPED = new Set(['.git', '.terraform']);

/** A template directory's files as an archive holds them (what `coder templates push -d DIR` uploads), without .git and .terraform. */
export function readTemplateDir(dir: string): { name: string; content: string }[] {
  let root;
  try {
    root = statSync(dir);
  } catch {
    throw new InvalidArgumentError(`--template-dir: no directory ${dir} (e.g. 'coder templates pull k8s-dev ./k8s-dev' writes one).`);
  }
  if (!root.isDirectory()) throw new InvalidArgumentError(`--template-dir: ${dir} is a file; give the template's directory.`);
  const files: { name: string; content: string }[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push({ name: relative(dir, path).split('\\').join('/'), content: readFileSync(path, 'utf8') });
    }
  };
  walk(dir);
  if (!files.some((f) => !f.name.includes('/') && f.name.endsWith('.tf'))) throw new InvalidArgumentError(`--template-dir: ${dir} has no .tf file at its top; give the template's directory.`);
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

/** `--param NAME=VALUE`, as `coder create --parameter` takes it; repeatable. */
export function workspaceParameter(raw: string, previous: { name: string; value: string }[] = []): { name: string; value: string }[] {
  const at = raw.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`--param must be NAME=VALUE (as 'coder create --parameter'), got "${raw}".`);
  return [...previous, { name: raw.slice(0, at), value: raw.slice(at + 1) }];
}

/** `--var NAME=VALUE`, as `coder templates push --var` takes it; repeatable. */
export function templateVariable(raw: string, previous: { name: string; value: string }[] = []): { name: string; value: string }[] {
  const at = raw.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`--var must be NAME=VALUE (as 'coder templates push --var'), got "${raw}".`);
  return [...previous, { name: raw.slice(0, at), value: raw.slice(at + 1) }];
}
