import { EXIT } from '../../src/cli/io';
import { missingNamespaceMessage } from '../../src/cli/missing-namespace';
import { runMain } from '../harness/cli';

const NS = 'wsmigrate-no-such-namespace';

describe('missingNamespaceMessage', () => {
  test.each([
    ['the SDK', new Error("Namespace not found: 'team-a'")],
    ['raw gRPC', Object.assign(new Error('5 NOT_FOUND: Namespace team-a is not found.'), { code: 5 })],
    ["inside a command's own words", new Error("could not list waiting migrations (Namespace not found: 'team-a'); the worker registers …")],
    ['as a cause', Object.assign(new Error('Failed to start workflow'), { cause: new Error('5 NOT_FOUND: Namespace team-a is not found.') })],
  ])('%s: names the namespace, the setting and how to list or create one', (_how, err) => {
    expect(missingNamespaceMessage(err)).toBe(
      "Temporal has no namespace 'team-a' (TEMPORAL_NAMESPACE). Set TEMPORAL_NAMESPACE to the namespace your workers use ('temporal operator namespace list' shows them), or create it ('temporal operator namespace create --namespace team-a'; on Temporal Cloud, in its console), then 'wsmigrate setup' registers wsmigrate's search attributes there.",
    );
  });
  test('any other not-found (a workflow id, a schedule) is not taken for it', () => {
    expect(missingNamespaceMessage(Object.assign(new Error('5 NOT_FOUND: workflow execution not found for workflow ID "x"'), { code: 5 }))).toBeUndefined();
    expect(missingNamespaceMessage(new Error('schedule not found'))).toBeUndefined();
  });
});

describe('a TEMPORAL_NAMESPACE the server does not have: every command says so the same way, exit 2', () => {
  const saved = process.env.TEMPORAL_NAMESPACE;
  beforeAll(() => {
    process.env.TEMPORAL_NAMESPACE = NS;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TEMPORAL_NAMESPACE;
    else process.env.TEMPORAL_NAMESPACE = saved;
  });
  test.each([[['setup']], [['approvals']], [['status', 'wsmigrate/k8s/alice/dev']], [['fleet', 'status', 'wsmigrate-fleet/coder/k8s']], [['schedule', 'list']]])('%j', async (args) => {
    const r = await runMain(...args);
    expect(r.err).toContain(`wsmigrate: Temporal has no namespace '${NS}' (TEMPORAL_NAMESPACE).`);
    expect(r.exitCode).toBe(EXIT.usage);
  }, 60_000);
});
