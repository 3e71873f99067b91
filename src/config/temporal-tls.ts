import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { shown } from './env-parsers';
import { Secret } from './secret';

/** How to reach a Temporal cluster that is not a local dev server: TLS, mTLS, or a Temporal Cloud API key. */
export interface TemporalTls {
  /** PEM of the CA that signed the server's certificate; absent: the system's roots. */
  readonly caPem?: Buffer;
  /** Client certificate (PEM) and its key, for mTLS. */
  readonly clientCertPem?: Buffer;
  readonly clientKeyPem?: Secret;
  readonly serverName?: string;
  /** Where each came from, for `wsmigrate config`. */
  readonly paths: { ca?: string; cert?: string; key?: string };
}

export interface TemporalTlsVariables {
  TEMPORAL_TLS?: string;
  TEMPORAL_TLS_CA?: string;
  TEMPORAL_TLS_CERT?: string;
  TEMPORAL_TLS_KEY?: string;
  TEMPORAL_TLS_SERVER_NAME?: string;
  TEMPORAL_API_KEY?: string;
}

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/** Reads one PEM file named by `variable`; the problem names the variable, the path and what to do. */
function readPem(variable: string, raw: string, cwd: string, what: string, problems: string[]): Buffer | undefined {
  const path = isAbsolute(raw) ? raw : resolve(cwd, raw);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    problems.push(`${variable} names ${path}, which cannot be read (${code}); set it to the path of ${what} in PEM form`);
    return undefined;
  }
  if (!PEM.test(bytes.toString('utf8'))) {
    problems.push(`${variable} names ${path}, which is not PEM (no "-----BEGIN" line); set it to the path of ${what} in PEM form`);
    return undefined;
  }
  return bytes;
}

/**
 * TLS as the `temporal` CLI reads it: TEMPORAL_TLS_CA/_CERT/_KEY are file paths; a certificate, a key,
 * a CA, a server name, TEMPORAL_TLS=true or an API key (Temporal Cloud) each turn TLS on.
 */
export function temporalTlsFrom(
  v: TemporalTlsVariables,
  cwd: string,
): { value?: TemporalTls; problems: string[] } {
  const problems: string[] = [];
  const flag = v.TEMPORAL_TLS?.toLowerCase();
  if (flag !== undefined && !['true', 'false', '1', '0'].includes(flag)) {
    problems.push(`TEMPORAL_TLS must be true or false (got ${shown(v.TEMPORAL_TLS ?? '')}); e.g. TEMPORAL_TLS=true to use TLS with the system's CA roots`);
  }
  if (v.TEMPORAL_TLS_CERT && !v.TEMPORAL_TLS_KEY) problems.push('TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not: mTLS needs both; set TEMPORAL_TLS_KEY to the path of the client key (PEM)');
  if (v.TEMPORAL_TLS_KEY && !v.TEMPORAL_TLS_CERT) problems.push('TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not: mTLS needs both; set TEMPORAL_TLS_CERT to the path of the client certificate (PEM)');
  if (v.TEMPORAL_TLS_SERVER_NAME && /\s|\//.test(v.TEMPORAL_TLS_SERVER_NAME)) {
    problems.push(`TEMPORAL_TLS_SERVER_NAME must be a host name (got ${shown(v.TEMPORAL_TLS_SERVER_NAME)}); e.g. TEMPORAL_TLS_SERVER_NAME=temporal.example.com`);
  }
  if (v.TEMPORAL_API_KEY && /\s/.test(v.TEMPORAL_API_KEY)) problems.push('TEMPORAL_API_KEY must not contain spaces or newlines; copy the key from Temporal Cloud again');
  const caPem = v.TEMPORAL_TLS_CA ? readPem('TEMPORAL_TLS_CA', v.TEMPORAL_TLS_CA, cwd, "the CA certificate that signed the Temporal frontend's certificate", problems) : undefined;
  const clientCertPem = v.TEMPORAL_TLS_CERT ? readPem('TEMPORAL_TLS_CERT', v.TEMPORAL_TLS_CERT, cwd, 'the client certificate', problems) : undefined;
  const keyPem = v.TEMPORAL_TLS_KEY ? readPem('TEMPORAL_TLS_KEY', v.TEMPORAL_TLS_KEY, cwd, 'the client private key', problems) : undefined;
  if (problems.length > 0) return { problems };
  const on = flag === 'true' || flag === '1' || Boolean(caPem || clientCertPem || v.TEMPORAL_TLS_SERVER_NAME || v.TEMPORAL_API_KEY);
  if (!on || flag === 'false' || flag === '0') {
    if ((flag === 'false' || flag === '0') && (caPem || clientCertPem || v.TEMPORAL_API_KEY)) {
      return { problems: ['TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA/_CERT or TEMPORAL_API_KEY, which need TLS; unset TEMPORAL_TLS or the others'] };
    }
    return { problems };
  }
  return {
    problems,
    value: {
      caPem,
      clientCertPem,
      clientKeyPem: keyPem ? Secret.of(keyPem.toString('utf8')) : undefined,
      serverName: v.TEMPORAL_TLS_SERVER_NAME,
      paths: { ca: v.TEMPORAL_TLS_CA, cert: v.TEMPORAL_TLS_CERT, key: v.TEMPORAL_TLS_KEY },
    },
  };
}

