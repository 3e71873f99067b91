import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporalTlsFrom } from '../../src/config/temporal-tls';

/**
 * TEMPORAL_TLS* and TEMPORAL_API_KEY as the `temporal` CLI reads them (config/temporal-tls.ts): a
 * setting that cannot work is refused at start with the variable named, never a connection that goes
 * out in plaintext or with half a client pair. The PEMs here are only shaped as PEM: the reading is
 * checked, not the cryptography (test/client/temporal-tls.test.ts connects with real ones).
 */
describe('temporalTlsFrom', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tls-config-'));
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'client.pem'), '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'client.key'), '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n');
    writeFileSync(join(dir, 'half.pem'), '-----BEGIN\nnot a certificate\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tls = (v: Parameters<typeof temporalTlsFrom>[0]) => temporalTlsFrom(v, dir);

  it('TEMPORAL_TLS=true, TRUE or 1 turns TLS on with the system roots; false, 0 or nothing leaves it off', () => {
    for (const on of ['true', 'TRUE', '1']) expect(tls({ TEMPORAL_TLS: on })).toEqual({ problems: [], value: expect.objectContaining({ caPem: undefined, clientCertPem: undefined }) });
    for (const off of ['false', 'False', '0']) expect(tls({ TEMPORAL_TLS: off })).toEqual({ problems: [] });
    expect(tls({})).toEqual({ problems: [] });
  });

  it('a CA alone, or a server name alone, turns TLS on', () => {
    const ca = tls({ TEMPORAL_TLS_CA: 'ca.pem' });
    expect(ca.problems).toEqual([]);
    expect(ca.value?.caPem?.toString()).toMatch(/BEGIN CERTIFICATE/);
    expect(ca.value?.paths).toEqual({ ca: 'ca.pem' });
    expect(tls({ TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com' }).value?.serverName).toBe('temporal.example.com');
  });

  it('TEMPORAL_TLS=false or 0 beside a CA, a client pair or an API key is a contradiction, not a plaintext connection', () => {
    for (const flag of ['false', '0']) {
      for (const other of [{ TEMPORAL_TLS_CA: 'ca.pem' }, { TEMPORAL_TLS_CERT: 'client.pem', TEMPORAL_TLS_KEY: 'client.key' }, { TEMPORAL_API_KEY: 'cloud-key' }]) {
        const r = tls({ TEMPORAL_TLS: flag, ...other });
        expect(r.value).toBeUndefined();
        expect(r.problems).toEqual(['TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA/_CERT or TEMPORAL_API_KEY, which need TLS; unset TEMPORAL_TLS or the others']);
      }
    }
  });

  it('a server name that is not a host name, and an API key with spaces or a newline, are refused naming the variable', () => {
    for (const name of ['temporal.example.com/ns', 'temporal example.com']) {
      expect(tls({ TEMPORAL_TLS_SERVER_NAME: name }).problems).toEqual([expect.stringMatching(/^TEMPORAL_TLS_SERVER_NAME must be a host name/)]);
    }
    for (const key of ['cloud key', 'cloud-key\n']) {
      expect(tls({ TEMPORAL_API_KEY: key }).problems).toEqual(['TEMPORAL_API_KEY must not contain spaces or newlines; copy the key from Temporal Cloud again']);
    }
  });

  it('a file with a bare "-----BEGIN" and no PEM label is not PEM', () => {
    expect(tls({ TEMPORAL_TLS_CA: 'half.pem' }).problems).toEqual([expect.stringMatching(/^TEMPORAL_TLS_CA names .*half\.pem, which is not PEM/)]);
  });

  it('a client pair gives both halves, the key kept secret', () => {
    const r = tls({ TEMPORAL_TLS_CERT: 'client.pem', TEMPORAL_TLS_KEY: 'client.key' });
    expect(r.problems).toEqual([]);
    expect(r.value?.clientCertPem?.toString()).toMatch(/BEGIN CERTIFICATE/);
    expect(r.value?.clientKeyPem?.reveal()).toMatch(/BEGIN PRIVATE KEY/);
    expect(JSON.stringify(r.value)).not.toContain('PRIVATE KEY');
  });
});
