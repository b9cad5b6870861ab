/**
 * Core micro-benchmarks (tinybench), run in a child process: ns per retry decision and per delay
 * computation. Each task runs a batch of {@link BATCH} operations so that timer overhead does not
 * swamp sub-microsecond work; the figures are per operation. Prints one JSON line.
 */
import {
  type BackoffStrategyName,
  createRetryPolicy,
  type HeaderGetter,
  initialBackoffState,
  nextDelay,
} from '@jitterbug/core';
import { type AttemptOutcome, backoffStrategies, decide } from '@jitterbug/core/adapter';
import { Bench } from 'tinybench';

export interface CoreResult {
  readonly name: string;
  /** Median ns per operation (tinybench's p50 of the batches). */
  readonly nsMedian: number;
  readonly nsMean: number;
  /** Relative margin of error of the mean, %. */
  readonly rme: number;
  readonly samples: number;
}

const BATCH = 100;
const time = Number(process.env['BENCH_CORE_MS'] ?? 250);

// The default policy, with a budget that a 1:1 mix of requests and retries never exhausts.
const policy = createRetryPolicy({ budget: { ratio: 1, burst: 1000 } });
const options = policy.options;
const noHeaders: HeaderGetter = () => undefined;
const retryAfterHeaders: HeaderGetter = (name) => (name === 'retry-after' ? '1' : undefined);
const url = 'http://127.0.0.1:3000/items/42';
const outcome = (status: number, responseHeaders: HeaderGetter): AttemptOutcome => ({
  method: 'GET',
  url,
  requestHeaders: noHeaders,
  bodyReplayable: true,
  attempt: 1,
  elapsedMs: 3,
  nowMs: Date.now(),
  backoffState: initialBackoffState,
  status,
  responseHeaders,
});
const ok = outcome(200, noHeaders);
const unavailable = outcome(503, noHeaders);
const unavailableRetryAfter = outcome(503, retryAfterHeaders);
const request = { method: 'GET', url, headers: noHeaders };

let sink = 0;
const bench = new Bench({ time, warmupTime: 100 });
const batch = (name: string, op: () => void): void => {
  bench.add(name, () => {
    for (let i = 0; i < BATCH; i++) op();
  });
};

batch('decide — 200', () => {
  sink += decide(ok, options).retry ? 1 : 0;
});
batch('decide — 503 (retry, full jitter)', () => {
  sink += decide(unavailable, options).retry ? 1 : 0;
});
batch('decide — 503 with Retry-After: 1', () => {
  sink += decide(unavailableRetryAfter, options).retry ? 1 : 0;
});
batch('policy.begin (new RetryRun)', () => {
  sink += policy.begin(request).attempts;
});
// Without hooks the decision is synchronous; a promise here would mean the bench measures the wrong path.
const retried = (decision: { retry: boolean } | Promise<unknown>): number => {
  if (decision instanceof Promise) throw new Error('RetryRun.next returned a promise without hooks');
  return decision.retry ? 1 : 0;
};
batch('begin + RetryRun.next — 200', () => {
  sink += retried(policy.begin(request).next({ status: 200, headers: noHeaders }));
});
batch('begin + RetryRun.next — 503 (retry)', () => {
  sink += retried(policy.begin(request).next({ status: 503, headers: noHeaders }));
});
const state = { attempt: 3, prevMs: 400 };
const params = { baseMs: 100, capMs: 20_000 };
for (const name of Object.keys(backoffStrategies) as BackoffStrategyName[]) {
  const strategy = backoffStrategies[name];
  batch(`nextDelay — ${name}`, () => {
    sink += nextDelay(strategy, state, params, Math.random)[0];
  });
}

await bench.run();
const results: CoreResult[] = bench.tasks.map((task) => {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
  return {
    name: task.name,
    nsMedian: (r.latency.p50 * 1e6) / BATCH,
    nsMean: (r.latency.mean * 1e6) / BATCH,
    rme: r.latency.rme,
    samples: r.latency.samplesCount,
  };
});
process.stdout.write(`${JSON.stringify({ results, sink: sink > 0 })}\n`);
