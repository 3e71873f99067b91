import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { ReadinessProbe } from './readiness';

export interface MetricsEndpointOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Where the Temporal runtime's own Prometheus exporter listens (loopback), appended to /metrics. */
  temporalMetricsUrl?: string;
  readiness: ReadinessProbe;
}

export interface MetricsEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * /metrics (wsmigrate's metrics followed by the Temporal runtime's), /healthz (the process answers)
 * and /readyz (Temporal and Coder answered recently) on one port, as Kubernetes probes and a
 * ServiceMonitor expect.
 */
export async function startMetricsEndpoint(opts: MetricsEndpointOptions): Promise<MetricsEndpoint> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'text/plain', 'only GET\n');
    if (path === '/healthz') return reply(200, 'text/plain', 'ok\n');
    if (path === '/readyz') {
      const report = opts.readiness.report();
      return reply(report.ready ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`);
    }
    if (path === '/metrics') {
      void (async () => {
        const ours = await opts.registry.metrics();
        const temporal = opts.temporalMetricsUrl ? await fetchText(opts.temporalMetricsUrl) : '';
        reply(200, opts.registry.contentType, `${ours}\n${temporal}`);
      })().catch((err: Error) => reply(500, 'text/plain', `metrics failed: ${err.message}\n`));
      return;
    }
    reply(404, 'text/plain', 'try /metrics, /healthz or /readyz\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The Temporal runtime's exposition text, or a comment saying why it is missing (the rest still serves). */
async function fetchText(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return await res.text();
  } catch (err) {
    return `# temporal runtime metrics unavailable: ${(err as Error).message}\n`;
  }
}
