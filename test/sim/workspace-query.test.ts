import { ApiError } from '../../src/sim/api-error';
import { parseWorkspaceQuery } from '../../src/sim/workspace-query';

describe("the simulator's workspace search syntax", () => {
  test('key:value terms, quoted values, and the whole query lower-cased', () => {
    expect(parseWorkspaceQuery('owner:"Alice" template:K8S-Dev status:running')).toEqual({ owner: 'alice', template: 'k8s-dev', status: 'running' });
  });

  test('a bare term is a name; owner/name sets both', () => {
    expect(parseWorkspaceQuery('dev')).toEqual({ name: 'dev' });
    expect(parseWorkspaceQuery('bob/api-2')).toEqual({ owner: 'bob', name: 'api-2' });
  });

  test('user: is read as owner: (newer docs spell it that way)', () => {
    expect(parseWorkspaceQuery('user:me')).toEqual({ owner: 'me' });
  });

  test('booleans are parsed; known keys the simulator does not filter on are accepted', () => {
    expect(parseWorkspaceQuery('outdated:true dormant:false has-agent:connected param:region=eu')).toEqual({ outdated: true, dormant: false });
    expect(() => parseWorkspaceQuery('outdated:maybe')).toThrow(ApiError);
  });

  test('an unknown key is a 400 with a validation on field q naming the key', () => {
    try {
      parseWorkspaceQuery('template:k8s-dev colour:blue');
      throw new Error('expected a rejection');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      const apiError = err as ApiError;
      expect(apiError.status).toBe(400);
      expect(apiError.validations).toEqual([{ field: 'q', detail: 'Query param "colour" is not a valid query param' }]);
    }
  });

  test('a key with an empty value is a 400, as coderd/searchquery answers, never a filter that matches nothing', () => {
    for (const q of ['owner:', 'template:""', 'name: dev']) {
      expect(() => parseWorkspaceQuery(q)).toThrow(ApiError);
      try {
        parseWorkspaceQuery(q);
      } catch (err) {
        expect((err as ApiError).status).toBe(400);
        expect((err as Error).message).toBe('Invalid workspace search query.');
      }
    }
  });
});
