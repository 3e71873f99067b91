import execa from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ApiServerCerts {
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** Signs service-account tokens; the API server refuses to start without one. */
  serviceAccountKey: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const result = await execa('openssl', args, { cwd, reject: false, stdin: 'ignore' });
  if (result.exitCode !== 0) {
    const tail = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ');
    throw new Error(`openssl ${args[0] ?? ''} failed (exit ${result.exitCode}): ${tail}. Is openssl installed and on PATH?`);
  }
}

/** A throwaway CA and a serving certificate for 127.0.0.1, written into `dir`. */
export async function generateApiServerCerts(dir: string): Promise<ApiServerCerts> {
  await writeFile(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=wsmigrate-local-ca', '-keyout', 'ca.key', '-out', 'ca.crt'], dir);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=kube-apiserver', '-keyout', 'server.key', '-out', 'server.csr'], dir);
  await openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'server.crt'], dir);
  await openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  const p = (name: string) => join(dir, name);
  return { caCert: p('ca.crt'), serverCert: p('server.crt'), serverKey: p('server.key'), serviceAccountKey: p('sa.key') };
}
