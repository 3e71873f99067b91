export interface TemplateFile {
  path: string;
  content: string;
}

export interface ParsedTemplateFile {
  file: string;
  json: unknown;
}

/** A template file that does not parse; the message carries hcl2json's `file:line,col` diagnostic. */
export class HclParseError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'HclParseError';
  }
}

type HclParser = typeof import('@cdktf/hcl2json');
let loading: Promise<HclParser> | undefined;

/**
 * The parser, loaded once per process: its WebAssembly (a Go program, about 6 MB once unzipped)
 * takes about 0.35 CPU-seconds to load and compile. A worker loads it when it starts (see
 * worker/create-worker.ts), so its first migration does not wait for it; a CLI command only when it
 * parses, as requiring it costs ~0.25 s that every command would pay otherwise. A failed load is
 * not kept: the next parse tries again.
 */
export function loadHclParser(): Promise<HclParser> {
  if (!loading) {
    loading = import('@cdktf/hcl2json');
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

/**
 * Parses Terraform files into hcl2json's JSON shape (block bodies as arrays, expressions as
 * `"${…}"` strings). `.tf.json` files are already JSON, which hcl2json does not accept, so they are
 * read as-is. Runs in a WASM module, which is why this is an adapter and not domain code.
 */
export async function parseTemplateFiles(files: readonly TemplateFile[]): Promise<ParsedTemplateFile[]> {
  const { parse } = await loadHclParser();
  const out: ParsedTemplateFile[] = [];
  // One at a time: the WASM bridge is a single Go runtime, and template directories are small.
  for (const { path, content } of files) {
    if (path.endsWith('.tf.json')) {
      try {
        out.push({ file: path, json: JSON.parse(content) as unknown });
      } catch (error) {
        throw new HclParseError(`${path}: not valid JSON (${(error as Error).message})`, path);
      }
      continue;
    }
    try {
      out.push({ file: path, json: await parse(path, content) });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new HclParseError(`${path}: cannot parse HCL: ${detail.replace(/^parse config: /, '')}`, path);
    }
  }
  return out;
}
