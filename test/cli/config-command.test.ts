import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';

/**
 * README: "`wsmigrate config` prints what it read". CODER_ORGANIZATION (what --org means when it is
 * not given) and the tool paths are read outside the config loader, and config left them out: an SRE
 * who set CODER_ORGANIZATION could not see which organization a bare `fleet start` would take.
 */
describe('wsmigrate config', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('shows the organization --org means when not given, and where the tools are', async () => {
    Object.assign(process.env, { CODER_ORGANIZATION: 'platform', WSMIGRATE_TOOLS_DIR: '/opt/wsmigrate/bin' });
    delete process.env.WSMIGRATE_TEMPORAL_BIN;
    const r = await runMain('config');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toMatch(/^CODER_ORGANIZATION +platform \(what --org means when not given\)$/m);
    expect(r.out).toMatch(/^WSMIGRATE_TOOLS_DIR +\/opt\/wsmigrate\/bin$/m);
    expect(r.out).toMatch(/^WSMIGRATE_TEMPORAL_BIN +\(not set: the one in WSMIGRATE_TOOLS_DIR\)$/m);
    delete process.env.CODER_ORGANIZATION;
    expect((await runMain('config')).out).toMatch(/^CODER_ORGANIZATION +coder \(default: what --org means when not given\)$/m);
  });
});
