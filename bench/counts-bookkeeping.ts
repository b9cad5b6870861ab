/**
 * The core's bookkeeping of one successful request, alone, for the instruction counts
 * (`counts.ts`), run under callgrind like `counts-child.ts`: what every adapter does for a 200
 * whatever the client, `policy.begin` (the run, its budget deposit), `run.settle(200)` (the status
 * decided, the run finished, its summary made) and `setRetryInfo` (the summary stamped on the
 * response). With the bench's options. Argument: a JSON `{ warmup, windows }` (request counts).
 */
import { getPriority } from 'node:os';
import { setRetryInfo, toRetryPolicy } from '@jitterbug/core/adapter';
import { JITTERBUG_OPTIONS } from './config.ts';

const { warmup, windows } = JSON.parse(process.argv[2] ?? '{}') as {
  warmup: number;
  windows: readonly number[];
};
const mark = (): number => getPriority();
const policy = toRetryPolicy(JITTERBUG_OPTIONS);
const URL_50B = 'http://127.0.0.1:40000/ok/50B';
const noHeaders = (): undefined => undefined;

// One response object per request, as a client makes one; the loop keeps the last so that V8 cannot
// drop the work.
let last: object | undefined;
const requests = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) {
    const run = policy.begin({ method: 'GET', url: URL_50B, headers: noHeaders, body: 'none' });
    const settled = run.settle(200);
    // An adapter waits only for an `onFinish` hook's promise; the bench's options have none.
    if (settled instanceof Promise) await settled;
    const response = { status: 200 };
    if (run.summary) setRetryInfo(response, run.summary);
    last = response;
  }
};

await requests(warmup);
mark();
mark();
for (const n of windows) {
  mark();
  await requests(n);
  mark();
}
console.log(JSON.stringify({ windows: windows.map((n) => ({ block: '50B', n, failures: last ? 0 : n })) }));
