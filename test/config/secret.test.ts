import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { format, inspect } from 'node:util';
import { redactSecrets, Secret } from '../../src/config/secret';

const TOKEN = 'Zx9QpL2mK7-abcdefghijklmnop0123456789';

function captureConsole(): { console: Console; output: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { console: new Console({ stdout: sink, stderr: sink }), output: () => text };
}

describe('Secret', () => {
  const secret = Secret.of(TOKEN);
  const holder = { coder: { url: 'https://coder.example.com', sessionToken: secret }, list: [secret] };

  it('gives the value only through reveal()', () => {
    expect(secret.reveal()).toBe(TOKEN);
  });

  it('does not leak through String(), template literals or concatenation', () => {
    expect(String(secret)).toBe('[redacted]');
    expect(`${secret}`).toBe('[redacted]');
    expect('token=' + secret).toBe('token=[redacted]');
  });

  it('does not leak through JSON.stringify, alone or nested', () => {
    expect(JSON.stringify(secret)).toBe('"[redacted]"');
    const json = JSON.stringify(holder);
    expect(json).not.toContain(TOKEN);
    expect(JSON.parse(json).coder.sessionToken).toBe('[redacted]');
  });

  it('does not leak through util.inspect, even with showHidden and full depth', () => {
    expect(inspect(secret)).toBe('[redacted]');
    expect(inspect(holder, { showHidden: true, depth: Infinity })).not.toContain(TOKEN);
    expect(inspect(holder)).toContain('[redacted]');
  });

  it('does not leak through util.format or console with any placeholder', () => {
    for (const placeholder of ['%s', '%o', '%O', '%j']) {
      expect(format(placeholder, holder)).not.toContain(TOKEN);
      expect(format(placeholder, secret)).not.toContain(TOKEN);
    }
    const { console, output } = captureConsole();
    console.log(holder);
    console.error('token:', secret, holder);
    console.table([{ token: secret }]);
    console.dir(holder, { depth: 10 });
    expect(output()).toContain('[redacted]');
    expect(output()).not.toContain(TOKEN);
  });

  it('does not leak through an Error whose message is built from an object holding it', () => {
    const errors = [
      new Error(`login failed for ${holder.coder.sessionToken}`),
      new Error(`request failed: ${JSON.stringify(holder)}`),
      new Error(`request failed: ${inspect(holder)}`),
      new Error(`request failed: ${format('%o', holder)}`),
      new Error(`request failed: ${holder}`),
    ];
    for (const err of errors) {
      expect(err.message).not.toContain(TOKEN);
      expect(err.stack ?? '').not.toContain(TOKEN);
      expect(inspect(err)).not.toContain(TOKEN);
    }
  });

  it('has no enumerable own properties that spreading or Object.entries could copy out', () => {
    expect(Object.keys(secret)).toEqual([]);
    expect(JSON.stringify({ ...secret })).not.toContain(TOKEN);
    expect(Object.getOwnPropertyNames(secret)).toEqual([]);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret, given as a string or a Secret', () => {
    const text = `Authorization: ${TOKEN}\nretrying with ${TOKEN}; signing secret s3cr3t-sign`;
    const out = redactSecrets(text, [Secret.of(TOKEN), 's3cr3t-sign', undefined]);
    expect(out).toBe('Authorization: [redacted]\nretrying with [redacted]; signing secret [redacted]');
  });

  it('replaces the base64 forms of a secret (padded, unpadded, url-safe)', () => {
    const secret = 'user:pa$$word?>>';
    const base64 = Buffer.from(secret).toString('base64');
    const base64url = Buffer.from(secret).toString('base64url');
    expect(base64).not.toBe(base64url);
    const text = `Basic ${base64} / ${base64.replace(/=+$/, '')} / ${base64url}`;
    const out = redactSecrets(text, [secret]);
    expect(out).toBe('Basic [redacted] / [redacted] / [redacted]');
  });

  it('replaces the URL-encoded form, as in a query string', () => {
    const secret = 'a b&c/d';
    expect(redactSecrets(`GET /api?token=${encodeURIComponent(secret)}`, [secret])).toBe('GET /api?token=[redacted]');
  });

  it('replaces a longer secret whole even when a shorter one is inside it', () => {
    expect(redactSecrets('key=abcdef123456', ['abc', 'abcdef123456'])).toBe('key=[redacted]');
  });

  it('leaves text without secrets unchanged and ignores empty values', () => {
    expect(redactSecrets('nothing to hide', ['', undefined, 'absent'])).toBe('nothing to hide');
  });
});
