import { createLogger } from '../../src/adapters/logging/logger';

/** The process logger's own redaction (logging/logger.ts), without a worker: unit speed. */
describe('the process logger never writes a secret', () => {
  const capture = (pretty: boolean, secrets: string[] = []) => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', pretty, secrets, destination: { write: (l) => void lines.push(l), isTTY: pretty } });
    return { logger, text: () => lines.join('') };
  };

  it('redacts a secret field whose value happens to be an upper-case word: only a `state` field may show a lifecycle word', () => {
    const { logger, text } = capture(false);
    logger.info({ password: 'CORRECT_HORSE', nested: { secret: 'BATTERY_STAPLE' }, state: 'RUNNING' }, 'x');
    expect(text()).not.toContain('CORRECT_HORSE');
    expect(text()).not.toContain('BATTERY_STAPLE');
    expect(JSON.parse(text())).toMatchObject({ state: 'RUNNING' });
  });

  it('redacts a `state` field holding state text, gzip+base64 included (H4sI…), not only JSON', () => {
    const { logger, text } = capture(false);
    logger.info({ state: 'H4sIAAAAAAAA/6tWyk0tLkpMT1WyUlAqS8wpTVWqBQBN7pFNFwAAAA==' }, 'x');
    expect(JSON.parse(text())).toMatchObject({ state: '[redacted]' });
  });

  it('scrubs known secrets from pretty (terminal) output as from JSON', () => {
    const token = 'Zq81-sessiontoken-value-0f3e';
    const { logger, text } = capture(true, [token]);
    logger.info({ url: `https://coder.example/?t=${token}` }, `token ${token} rejected`);
    expect(text()).toMatch(/rejected/);
    expect(text()).not.toContain(token);
  });
});
