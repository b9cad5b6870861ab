/**
 * One client process of the benchmark (a fresh process per variant run). Argument: a JSON
 * {@link ClientJob}. Warms up, measures the success path (`/ok`), then, for retrying variants, the
 * retry path (`/flaky`: 503 then 200), and prints one JSON line with both phases.
 */
import { CLIENTS } from './clients/index.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { measure, type PhaseResult, runRequests } from './load.ts';

export interface ClientJob {
  readonly client: ClientName;
  readonly kind: VariantKind;
  readonly origin: string;
  readonly concurrency: number;
  readonly warmup: number;
  readonly requests: number;
  /** Retried requests to measure (0: none). */
  readonly retryRequests: number;
  readonly retryWarmup: number;
}

export interface ClientOutput {
  readonly success: PhaseResult;
  readonly retry?: PhaseResult;
}

const job = JSON.parse(process.argv[2] ?? '{}') as ClientJob;
const client = await CLIENTS[job.client](job.kind, job.origin);
const tag = `${process.pid}-${job.kind}`;

await runRequests(client, job.warmup, job.concurrency, () => '/ok');
const success = await measure(client, job.requests, job.concurrency, () => '/ok');
let retry: PhaseResult | undefined;
if (job.retryRequests > 0) {
  await runRequests(client, job.retryWarmup, job.concurrency, (i) => `/flaky?id=${tag}-w${i}`);
  retry = await measure(client, job.retryRequests, job.concurrency, (i) => `/flaky?id=${tag}-${i}`);
}
await client.close();
const output: ClientOutput = retry ? { success, retry } : { success };
process.stdout.write(`${JSON.stringify(output)}\n`);
