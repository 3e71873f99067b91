import { writeFile } from 'node:fs/promises';

/**
 * A Terraform CLI config that installs providers only from a local filesystem mirror (no
 * `direct {}`): `terraform init` works offline and can never reach the registry.
 */
export async function writeMirrorCliConfig(path: string, mirrorDir: string): Promise<void> {
  const text = `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(mirrorDir)}\n  }\n}\n`;
  await writeFile(path, text);
}
