/**
 * Tests that need a tool on the machine (Terraform, kubectl, script(1)). Without it they skip,
 * loudly, on a developer's machine; under CI (CI set) a missing tool is a broken setup, so each
 * such test runs and fails, naming the tool and how to get it. CI's run therefore has no skips.
 */
function missing(tool: string, hint: string): Error {
  return new Error(`CI is set, so this test must run, but ${tool} is missing: ${hint}`);
}

function warn(tool: string, hint: string, name: string): void {
  console.warn(`\n*** SKIPPING "${name}": ${tool} is missing (${hint}). Under CI=true it fails instead. ***\n`);
}

/** `it` when the tool is there; else a skip, or under CI a test that fails. */
export function itNeeds(available: boolean, tool: string, hint: string): jest.It {
  if (available) return it;
  if (process.env.CI) return ((name: string) => it(name, () => { throw missing(tool, hint); })) as unknown as jest.It;
  return ((name: string, fn?: jest.ProvidesCallback, timeout?: number) => {
    warn(tool, hint, name);
    it.skip(name, fn, timeout);
  }) as unknown as jest.It;
}

/** `describe` when the tool is there; else a skip, or under CI one failing test in its place. */
export function describeNeeds(available: boolean, tool: string, hint: string): jest.Describe {
  if (available) return describe;
  if (process.env.CI) return ((name: string) => describe(name, () => it(`needs ${tool}`, () => { throw missing(tool, hint); }))) as unknown as jest.Describe;
  return ((name: string, fn: jest.EmptyFunction) => {
    warn(tool, hint, name);
    describe.skip(name, fn);
  }) as unknown as jest.Describe;
}
