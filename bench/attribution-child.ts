/**
 * One profiled client process (`attribution.ts`): the variant warms up on the 50-byte response,
 * then the inspector's sampling profiler (every {@link INTERVAL_US} µs) records `requests` more, and
 * the process prints the profile's shares (`own-code.ts`) as one JSON line. Argument: JSON
 * `{ client, kind, origin, warmup, requests }`.
 */
import { Session } from 'node:inspector/promises';
import { okPath } from './bodies.ts';
import { CLIENTS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { runRequests } from './load.ts';
import { type CpuProfile, PEER_CODE, shares } from './own-code.ts';
import { CONCURRENCY } from './plan.ts';

/** Sampling interval: fine enough for a function of a microsecond per request to collect samples. */
const INTERVAL_US = 50;

const job = JSON.parse(process.argv[2] ?? '{}') as {
  client: ClientName;
  kind: VariantKind;
  origin: string;
  warmup: number;
  requests: number;
};
const client = await CLIENTS[job.client](job.kind, job.origin);
const path = okPath('50B');
await runRequests(client, job.warmup, CONCURRENCY, () => path);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
await session.post('Profiler.start');
const failures = await runRequests(client, job.requests, CONCURRENCY, () => path);
const { profile } = await session.post('Profiler.stop');
session.disconnect();
await client.close();
if (failures > 0) throw new Error(`${failures} requests did not end in 200`);
const result = shares(profile as unknown as CpuProfile, PEER_CODE[job.client]);
process.stdout.write(`${JSON.stringify({ ...result, requests: job.requests })}\n`);
