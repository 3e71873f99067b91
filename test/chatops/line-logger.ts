import { createLogger, type Logger } from '../../src/adapters/logging/logger';

/** The chatops logger as production builds it (pino JSON lines, component chatops), into an array. */
export function lineLogger(lines: string[], secrets: readonly string[] = []): Logger {
  return createLogger({ level: 'info', pretty: false, secrets, base: { component: 'chatops' }, destination: { write: (l: string) => lines.push(l) } });
}
