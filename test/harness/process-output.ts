/**
 * Records everything the test process prints (console and the raw stdout/stderr writes, which
 * Temporal's runtime and pino use) into `into`, still passing it through; undone by
 * jest.restoreAllMocks(). For tests that prove a secret is never printed.
 */
export function captureProcessOutput(into: string[]): void {
  for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(console, m).mockImplementation((...args: unknown[]) => void into.push(args.map(String).join(' ')));
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...a: unknown[]) => boolean;
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return write(chunk, ...rest);
    }) as typeof stream.write);
  }
}
