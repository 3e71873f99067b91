import { coverageOf, coverageText, overlaps, sharedTemplates } from '../../src/domain/fleet-coverage';

describe('fleet coverage: which templates a fleet, an organization run or a schedule migrates', () => {
  it('reads a start input: one template of a fleet, the named ones or every one of an organization run', () => {
    expect(coverageOf('migrateFleet', { organization: 'acme', template: 'k8s' }, 'q')).toEqual({ organization: 'acme', templates: ['k8s'], taskQueue: 'q' });
    expect(coverageOf('migrateOrganization', { organization: 'acme', templates: ['a', 'b'] })).toEqual({ organization: 'acme', templates: ['a', 'b'] });
    expect(coverageOf('migrateOrganization', { organization: 'acme', allTemplates: true })).toEqual({ organization: 'acme', templates: 'all' });
    // The inputs' own default organization; a workflow that migrates no fleet covers nothing.
    expect(coverageOf('migrateFleet', { template: 'k8s' })?.organization).toBe('coder');
    expect(coverageOf('migrateWorkspace', { template: 'k8s' })).toBeUndefined();
  });

  it('two share a template only within one organization; every template reaches only runs on its own task queue', () => {
    const fleet = { organization: 'coder', templates: ['k8s'], taskQueue: 'q1' };
    expect(sharedTemplates(fleet, { organization: 'coder', templates: ['gpu', 'k8s'], taskQueue: 'q2' })).toEqual(['k8s']);
    expect(overlaps(fleet, { organization: 'coder', templates: ['gpu'] })).toBe(false);
    expect(overlaps(fleet, { organization: 'other', templates: ['k8s'] })).toBe(false);
    expect(sharedTemplates(fleet, { organization: 'coder', templates: 'all', taskQueue: 'q1' })).toEqual(['k8s']);
    expect(overlaps(fleet, { organization: 'coder', templates: 'all', taskQueue: 'q2' })).toBe(false);
    expect(overlaps({ organization: 'coder', templates: 'all' }, { organization: 'coder', templates: 'all', taskQueue: 'q2' })).toBe(true);
  });

  it('names what it covers', () => {
    expect(coverageText({ organization: 'coder', templates: ['k8s'] })).toBe('coder/k8s');
    expect(coverageText({ organization: 'coder', templates: ['k8s', 'gpu'] })).toBe('coder/{k8s, gpu}');
    expect(coverageText({ organization: 'coder', templates: 'all' })).toBe('every template of coder');
  });
});
