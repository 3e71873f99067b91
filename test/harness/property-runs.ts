/**
 * A property's fast-check `numRuns`: as given, or at most `WSMIGRATE_PROPERTY_RUNS_CAP` under
 * mutation testing (stryker.shared.mjs sets it). A mutant the property catches fails within its
 * first few generated inputs; a surviving one would have run every input of every property that
 * covers it (json-spans' 1,500 and the lexer's 2,000 on each state or parser mutant: minutes of a
 * whole run). Every other run keeps the full count.
 */
export function propertyRuns(numRuns: number): number {
  const cap = Number(process.env.WSMIGRATE_PROPERTY_RUNS_CAP);
  return cap > 0 ? Math.min(numRuns, cap) : numRuns;
}
