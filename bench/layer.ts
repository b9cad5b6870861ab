/**
 * The cost of an undici interceptor itself, timed inside one client process: the variant's
 * interceptor is composed between two timing interceptors, and the time from entering its dispatch
 * (or a handler event) to its call of the next dispatch (or of the caller's handler) is summed over
 * the measured requests. Whole-process CPU ratios (section 2) carry the machine's noise, a few per
 * cent per pair; this isolates the µs the layer adds per request, and the `raw` variant (an empty
 * layer) measures what the timing itself costs. undici only: its interceptors have a call-in and a
 * call-out to time; axios' and ky's hooks do not. Argument: JSON `{ client, kind, origin, warmup,
 * requests }`; prints one JSON line.
 */
import type { Dispatcher } from 'undici';
import type { VariantKind } from './clients/types.ts';
import { undiciInterceptor } from './clients/undici-dispatcher.ts';
import { runRequests } from './load.ts';
import { CONCURRENCY } from './plan.ts';

export interface LayerOutput {
  /** µs per request spent inside the layer (timer overhead included). */
  readonly layerUs: number;
}

interface LayerJob {
  readonly client: 'undici-request' | 'undici-fetch';
  readonly kind: VariantKind;
  readonly origin: string;
  readonly warmup: number;
  readonly requests: number;
}

type Handler = Record<string, ((...args: unknown[]) => unknown) | undefined>;
const EVENTS = ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError'];

const job = JSON.parse(process.argv[2] ?? '{}') as LayerJob;
const { Agent, fetch, request } = await import('undici');
const agent = new Agent();
const layer: Dispatcher.DispatcherComposeInterceptor =
  (await undiciInterceptor(job.kind)) ?? ((dispatch) => dispatch);

let enteredAt = 0;
let inside = 0;
const enter = (): void => {
  enteredAt = performance.now();
};
const leave = (): void => {
  inside += performance.now() - enteredAt;
};
// Each handler event runs `before`, then calls the wrapped handler's own method.
const wrapHandler = (handler: Handler, before: () => void): Handler => {
  const wrapped: Handler = {};
  for (const event of EVENTS) {
    wrapped[event] = (...args) => {
      before();
      return handler[event]?.(...args);
    };
  }
  return wrapped;
};
// Outside the layer: the layer is entered at dispatch and at each event it forwards to the caller…
const outer: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const caller = wrapHandler(handler as unknown as Handler, leave);
  enter();
  return dispatch(opts, caller as unknown as Dispatcher.DispatchHandler);
};
// …and left when it calls the next dispatch, or when undici's event reaches it.
const inner: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  leave();
  return dispatch(
    opts,
    wrapHandler(handler as unknown as Handler, enter) as unknown as Dispatcher.DispatchHandler,
  );
};
const dispatcher = agent.compose(inner, layer, outer);

const client = {
  async get(path: string): Promise<number> {
    if (job.client === 'undici-fetch') {
      const res = await fetch(`${job.origin}${path}`, { dispatcher });
      await res.json();
      return res.status;
    }
    const res = await request(`${job.origin}${path}`, { dispatcher });
    await res.body.json();
    return res.statusCode;
  },
  close: () => agent.close(),
};

await runRequests(client, job.warmup, CONCURRENCY, () => '/ok');
inside = 0;
const failures = await runRequests(client, job.requests, CONCURRENCY, () => '/ok');
await client.close();
if (failures > 0) throw new Error(`${failures} requests did not end in 200`);
const output: LayerOutput = { layerUs: (inside * 1000) / job.requests };
process.stdout.write(`${JSON.stringify(output)}\n`);
