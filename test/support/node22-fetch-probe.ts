/**
 * Run by Node 22 (`.tools/node_modules/node22/bin/node`, whose global fetch is undici 6) from
 * `signals-node22.test.ts`: sends each probe given as JSON in argv[2] with the global fetch and
 * prints, as one JSON line, what the caller got and what an interceptor saw. The servers run in the
 * test's own process; this one only plays the client.
 */
import { Agent } from 'undici7';
import { type DispatchTrace, type ErrorShape, errorShape, traceDispatches } from './signal-probe.ts';

export interface Node22Probe {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Through an undici 7 `Agent` (HTTP/2 allowed, trusting `ca`) instead of fetch's own dispatcher. */
  readonly agent?: { readonly ca?: string; readonly connectTimeoutMs?: number };
}

export interface Node22Result {
  readonly status?: number;
  readonly body?: string;
  readonly error?: ErrorShape;
  readonly traces?: DispatchTrace[];
}

const send = async (probe: Node22Probe): Promise<Node22Result> => {
  const { traces, interceptor } = traceDispatches();
  const agent = probe.agent
    ? new Agent({
        allowH2: true,
        connect: {
          ...(probe.agent.ca ? { ca: probe.agent.ca } : {}),
          ...(probe.agent.connectTimeoutMs ? { timeout: probe.agent.connectTimeoutMs } : {}),
        },
      })
    : undefined;
  const init = {
    method: probe.method,
    ...(probe.method === 'POST' ? { body: 'payload' } : {}),
    ...(agent ? { dispatcher: agent.compose(interceptor as never) } : {}),
  };
  try {
    const res = await fetch(probe.url, init as RequestInit);
    const body = await res.text();
    return { status: res.status, body, ...(agent ? { traces } : {}) };
  } catch (error) {
    return { error: errorShape(error), ...(agent ? { traces } : {}) };
  } finally {
    await agent?.close();
  }
};

const probes = JSON.parse(process.argv[2] ?? '[]') as Node22Probe[];
const results: Node22Result[] = [];
for (const probe of probes) results.push(await send(probe));
process.stdout.write(
  `${JSON.stringify({ node: process.version, undici: process.versions.undici, results })}\n`,
);
