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

  it('reads an organization run widely: no template named, or allTemplates whatever else it names, is every template; a non-name is no template', () => {
    // A run whose input names no template migrates every one: read narrower, a second run of the same templates would be let start beside it.
    expect(coverageOf('migrateOrganization', { organization: 'acme' })?.templates).toBe('all');
    expect(coverageOf('migrateOrganization', { organization: 'acme', templates: [] })?.templates).toBe('all');
    expect(coverageOf('migrateOrganization', { organization: 'acme', allTemplates: true, templates: ['a'] })?.templates).toBe('all');
    expect(coverageOf('migrateOrganization', { organization: 'acme', templates: ['a', 3, null] })?.templates).toEqual(['a']);
    // A start input that is missing or names no template of a fleet covers nothing to compare.
    expect(coverageOf('migrateFleet', undefined)).toBeUndefined();
    expect(coverageOf('migrateFleet', { organization: 'acme', template: 7 })).toBeUndefined();
    expect(coverageOf('migrateOrganization', undefined)).toEqual({ organization: 'coder', templates: 'all' });
  });

  it('two share a template only within one organization; every template reaches only runs on its own task queue', () => {
    const fleet = { organization: 'coder', templates: ['k8s'], taskQueue: 'q1' };
    expect(sharedTemplates(fleet, { organization: 'coder', templates: ['gpu', 'k8s'], taskQueue: 'q2' })).toEqual(['k8s']);
    expect(overlaps(fleet, { organization: 'coder', templates: ['gpu', 'k8s'] })).toBe(true);
    expect(overlaps(fleet, { organization: 'coder', templates: ['gpu'] })).toBe(false);
    expect(overlaps(fleet, { organization: 'other', templates: ['k8s'] })).toBe(false);
    expect(sharedTemplates(fleet, { organization: 'coder', templates: 'all', taskQueue: 'q1' })).toEqual(['k8s']);
    expect(overlaps(fleet, { organization: 'coder', templates: 'all', taskQueue: 'q2' })).toBe(false);
    expect(overlaps({ organization: 'coder', templates: 'all', taskQueue: 'q2' }, fleet)).toBe(false);
    expect(overlaps({ organization: 'coder', templates: 'all', taskQueue: 'q1' }, fleet)).toBe(true);
    expect(overlaps({ organization: 'coder', templates: 'all' }, { organization: 'coder', templates: 'all', taskQueue: 'q2' })).toBe(true);
    // A queue not known on either side is no proof they differ: every template then overlaps, whichever side lacks it.
    expect(sharedTemplates(fleet, { organization: 'coder', templates: 'all' })).toEqual(['k8s']);
    expect(sharedTemplates({ organization: 'coder', templates: 'all' }, fleet)).toEqual(['k8s']);
    expect(sharedTemplates({ organization: 'coder', templates: 'all', taskQueue: 'q1' }, { organization: 'coder', templates: 'all' })).toBe('all');
  });

  it('names what it covers', () => {
    expect(coverageText({ organization: 'coder', templates: ['k8s'] })).toBe('coder/k8s');
    expect(coverageText({ organization: 'coder', templates: ['k8s', 'gpu'] })).toBe('coder/{k8s, gpu}');
    expect(coverageText({ organization: 'coder', templates: 'all' })).toBe('every template of coder');
  });
});
