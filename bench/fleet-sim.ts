// The Coder simulator in its own process, so the bench can tell the worker's CPU from Coder's.
// Prints one JSON line {url, token, template} and serves until killed.
import { startSimulator } from '../src/sim';

async function main(): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const sim = await startSimulator({
    workspaces: arg('workspaces', 100),
    buildLatencyMs: arg('phase-ms', 500),
    templateName: 'k8s-bench',
    faults: { addedLatencyMs: arg('api-ms', 20) },
  });
  process.stdout.write(`${JSON.stringify({ url: sim.url, token: sim.token, template: sim.template.name })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
