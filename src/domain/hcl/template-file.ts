import type { HclDialect } from './native-occurrences';

/** One file of a Coder template; `path` is relative to the template root, with '/' separators. */
export interface TemplateFile {
  path: string;
  content: string;
}

/** How the rewriter treats a file: native HCL (with its dialect), Terraform JSON, or pass-through. */
export type TemplateFileSyntax = { syntax: 'native'; dialect: HclDialect } | { syntax: 'json' } | { syntax: 'other' };

/** Terraform reads only these; .tfvars, .tpl, scripts and READMEs are data, never rewritten. */
export function syntaxOf(path: string): TemplateFileSyntax {
  if (path.endsWith('.tf.json')) return { syntax: 'json' };
  if (path.endsWith('.tf')) return { syntax: 'native', dialect: 'config' };
  if (path.endsWith('.tftest.hcl')) return { syntax: 'native', dialect: 'test' };
  if (path.endsWith('.tfmock.hcl')) return { syntax: 'native', dialect: 'mock' };
  return { syntax: 'other' };
}
