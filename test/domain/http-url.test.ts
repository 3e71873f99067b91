import { checkHttpUrl } from '../../src/domain/http-url';

describe('checkHttpUrl', () => {
  it('accepts absolute http and https URLs and hands back the parsed URL', () => {
    const https = checkHttpUrl('https://coder.example.com/path');
    expect(https.ok && https.url.href).toBe('https://coder.example.com/path');
    expect(checkHttpUrl('http://127.0.0.1:3000').ok).toBe(true);
  });

  it('names what is wrong: not a URL, another scheme, or credentials in it', () => {
    expect(checkHttpUrl('coder.example.com')).toEqual({ ok: false, problem: 'not-a-url' });
    expect(checkHttpUrl('ftp://coder.example.com')).toMatchObject({ ok: false, problem: 'not-http' });
    expect(checkHttpUrl('https://user:pw@coder.example.com')).toMatchObject({ ok: false, problem: 'has-credentials' });
    expect(checkHttpUrl('https://user@coder.example.com')).toMatchObject({ ok: false, problem: 'has-credentials' });
  });
});
