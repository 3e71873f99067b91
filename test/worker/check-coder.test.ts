import { CoderApiError } from '../../src/adapters/coder/errors';
import { coderReadiness } from '../../src/adapters/metrics/coder-readiness';
import { checkCoderAtStart } from '../../src/worker/check-coder';

/** A worker started against a Coder it cannot use says so in its first lines, not in each migration's retries. */
describe('the worker checks Coder as it starts', () => {
  const url = 'https://coder.example.com/';
  const check = async (coder: { buildInfo(): Promise<unknown>; currentUser(): Promise<unknown> }) => {
    const lines: string[] = [];
    await checkCoderAtStart(coderReadiness(coder), url, (l) => lines.push(l));
    return lines;
  };

  it('says nothing when Coder answers and accepts the token', async () => {
    expect(await check({ buildInfo: async () => ({}), currentUser: async () => ({}) })).toEqual([]);
  });

  it('warns, naming the URL and the cause, when Coder does not answer', async () => {
    const lines = await check({ buildInfo: async () => Promise.reject(new Error('no answer from https://coder.example.com after 5 attempts (connect ECONNREFUSED). This is retryable.')), currentUser: async () => ({}) });
    expect(lines).toEqual([
      `WARNING: Coder at ${url} is not usable by this worker yet: no answer from https://coder.example.com after 5 attempts (connect ECONNREFUSED). This is retryable. Every migration's preflight fails and is retried until it is; '/readyz' says when it is`,
    ]);
  });

  it('warns that the token is rejected and whose token it must be, never showing it', async () => {
    const lines = await check({ buildInfo: async () => ({}), currentUser: async () => Promise.reject(new CoderApiError('401 Unauthorized', { kind: 'unauthorized', status: 401, method: 'GET', path: '/users/me', endpoint: 'GET /users/me', retryable: false, attempts: 1 })) });
    expect(lines.join('\n')).toMatch(/Coder rejects the session token \(401\).*set CODER_SESSION_TOKEN to a valid token of an Owner or an Organization Admin/);
  });
});
