/**
 * A probe, not part of `make bench`: the success-path cost of axios and ky variants with the
 * network taken out, so that differences of a microsecond can be seen (loopback pairs on this
 * machine swing by ±15 % per process). axios runs its http adapter over an in-memory `transport`;
 * ky runs over an in-memory `fetch`. Both answer 200 with a small JSON body.
 *
 *   node --conditions=@jitterbug/source --invocation-count-for-maglev=50 \
 *     --invocation-count-for-turbofan=300 bench/probes/in-memory.ts <client> <variant> [hot|cold] [n]
 *
 * - client: `axios` or `ky`.
 * - variant: `raw`, `jitterbug`, `peer`; ky also `init-noop` (the peer's retry option and an `init`
 *   hook that does nothing: what ky itself spends on a call that has one).
 * - `hot`: CPU per request, 16 in flight, back to back. `cold`: wall time of each request alone,
 *   with the caches disturbed before it (8 MiB touched, some JSON and URL work), as in a loopback
 *   client whose process sleeps between responses.
 *
 * Prints one line: `<client> <variant> <mode> <µs per request>`. Run each variant several times,
 * in alternation: a single process still moves by about ±1 µs.
 */
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { installVariant } from '../clients/axios.ts';
import { kyVariantOptions } from '../clients/ky.ts';

const [clientName = 'axios', variant = 'raw', mode = 'hot', count = '20000'] = process.argv.slice(2);
const n = Number(count);
const WARM_UP = 20_000;
const BODY = '{"ok":true,"items":[1,2,3]}';

type Call = () => Promise<void>;

/** What axios' http adapter needs of a `ClientRequest`: the response arrives on the next turn. */
class MemoryRequest extends EventEmitter {
  destroyed = false;
  readonly #onResponse: (res: Readable) => void;
  constructor(onResponse: (res: Readable) => void) {
    super();
    this.#onResponse = onResponse;
  }
  setTimeout(): this {
    return this;
  }
  write(): boolean {
    return true;
  }
  end(): this {
    setImmediate(() => {
      const res = Object.assign(new Readable({ read() {} }), {
        statusCode: 200,
        statusMessage: 'OK',
        headers: { 'content-type': 'application/json', 'content-length': String(BODY.length) },
        // Like Node's IncomingMessage once its whole body was parsed.
        complete: true,
        req: this,
      });
      res.push(Buffer.from(BODY));
      res.push(null);
      this.#onResponse(res);
    });
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

const axiosCall = async (): Promise<Call> => {
  const { default: axios } = await import('axios');
  const transport = { request: (_options: unknown, cb: (res: Readable) => void) => new MemoryRequest(cb) };
  const api = axios.create({ baseURL: 'http://127.0.0.1:9', adapter: 'http', transport, maxRedirects: 0 });
  if (variant !== 'raw' && variant !== 'jitterbug' && variant !== 'peer') {
    throw new TypeError(`unknown axios variant "${variant}"`);
  }
  await installVariant(api, variant);
  return async () => {
    const res = await api.get<{ ok?: boolean }>('/ok');
    if (res.data.ok !== true) throw new Error('unexpected body');
  };
};

const kyCall = async (): Promise<Call> => {
  const { default: ky } = await import('ky');
  const fetch = async (): Promise<Response> =>
    new Response(BODY, { status: 200, headers: { 'content-type': 'application/json' } });
  if (variant !== 'raw' && variant !== 'jitterbug' && variant !== 'peer' && variant !== 'init-noop') {
    throw new TypeError(`unknown ky variant "${variant}"`);
  }
  const options = await kyVariantOptions(variant, fetch);
  const api = ky.create({ baseUrl: 'http://127.0.0.1:9/', ...options });
  return async () => {
    const data = await api.get('ok').json<{ ok?: boolean }>();
    if (data.ok !== true) throw new Error('unexpected body');
  };
};

const call = clientName === 'axios' ? await axiosCall() : clientName === 'ky' ? await kyCall() : undefined;
if (call === undefined) throw new TypeError(`unknown client "${clientName}"`);

const inFlight = async (total: number): Promise<void> => {
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent++ < total) await call();
  };
  await Promise.all(Array.from({ length: 16 }, worker));
};

const junk = new Float64Array(1 << 20);
const records = Array.from({ length: 300 }, (_, i) => ({
  id: i,
  name: `n${i}`,
  tags: ['a', 'b'],
  v: i * 1.5,
}));
const disturbCaches = (): number => {
  let sum = 0;
  for (let i = 0; i < junk.length; i += 8) sum += ++junk[i]!;
  JSON.parse(JSON.stringify(records));
  return sum + new URL(`http://a.test/b?c=${sum}`).search.length;
};

await inFlight(WARM_UP);
let perRequestUs: number;
if (mode === 'hot') {
  const start = process.cpuUsage();
  await inFlight(n);
  const { user, system } = process.cpuUsage(start);
  perRequestUs = (user + system) / n;
} else if (mode === 'cold') {
  let totalMs = 0;
  for (let i = 0; i < n; i++) {
    disturbCaches();
    await new Promise(setImmediate);
    const t0 = performance.now();
    await call();
    totalMs += performance.now() - t0;
  }
  perRequestUs = (totalMs * 1000) / n;
} else {
  throw new TypeError(`unknown mode "${mode}"`);
}
console.log(`${clientName} ${variant} ${mode} ${perRequestUs.toFixed(2)}`);
