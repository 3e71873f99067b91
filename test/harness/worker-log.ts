/**
 * Every line the Temporal runtime logger of this Jest process received (workflow and activity
 * logs, at every level), so secret scans see what a production worker would print. Only WARN and
 * above are also written to stderr, to keep test output quiet.
 */
const lines: string[] = [];

export function recordWorkerLog(line: string): void {
  lines.push(line);
}

export function capturedWorkerLog(): readonly string[] {
  return lines;
}
