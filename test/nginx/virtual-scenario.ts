/**
 * One nginx scenario in virtual time: its stack (`stack.ts`) and a client of the setup's server
 * `api` over TLS (HTTP/2 for the clients that speak it), with jitterbug's default options, the
 * clock and sleep of `test/conformance/virtual-time.ts` and no jitter (`random: () => 0`, as the
 * conformance suite has it), so that a wait costs no time and is exactly what was asked.
 */
import type { ConformanceRequest, ConformanceResult } from '../conformance/driver.ts';
import { type VirtualTime, virtualTime } from '../conformance/virtual-time.ts';
import type { NginxSetup } from '../support/nginx/config.ts';
import { type ClientName, createClient, tlsTransport } from '../support/node-clients.ts';
import { type Stack, startStack } from './stack.ts';

export interface VirtualScenario {
  readonly stack: Stack;
  readonly time: VirtualTime;
  /** Sends `request` through the client, counted among the requests out in virtual time. */
  send(request: ConformanceRequest): Promise<ConformanceResult>;
  /** Closes the client, then the stack. */
  stop(): Promise<void>;
}

/** Starts `setup` and a `name` client of it whose clock starts at `startMs`. */
export const startVirtualScenario = async (
  setup: NginxSetup,
  name: ClientName,
  startMs: number,
): Promise<VirtualScenario> => {
  const stack = await startStack(setup);
  const time = virtualTime(startMs);
  const transport = tlsTransport(name);
  const url = stack.nginx.url('api', transport === 'h2' ? 'h2' : 'https');
  const client = await createClient(
    name,
    url,
    { now: time.now, sleep: time.sleep, random: () => 0 },
    { name: transport, ca: stack.nginx.ca },
  ).catch(async (error: unknown) => {
    await stack.stop();
    throw error;
  });
  return {
    stack,
    time,
    send: (request) => time.track(client.send(request)),
    async stop() {
      await client.close();
      await stack.stop();
    },
  };
};
