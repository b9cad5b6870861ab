/**
 * What the code each runtime's network failure is read as: the error codes jitterbug finds on the
 * error or its cause, or `ERR_NETWORK` for a failure of the fetch call reported without a code
 * (browsers, Deno, workerd) and for axios' own `ERR_NETWORK`. The network-failure scenarios retry
 * with `errorCodes` set to this code alone, so a retry proves the failure was read as it.
 */
import type { Script } from '../../support/scripted-server.ts';
import type { RuntimeClient } from '../in-runtime/client.ts';
import type { ClientName, ErrorShape, RuntimeName } from '../protocol.ts';
import type { RunContext } from '../scenario.ts';

const FETCH_CODE: Readonly<Record<RuntimeName, string>> = {
  chromium: 'ERR_NETWORK',
  firefox: 'ERR_NETWORK',
  deno: 'ERR_NETWORK',
  workerd: 'ERR_NETWORK',
  // Node's fetch: `TypeError: fetch failed` with undici's socket error as its cause.
  node22: 'UND_ERR_SOCKET',
  node24: 'UND_ERR_SOCKET',
  // Bun's fetch puts the socket's code on its TypeError.
  bun: 'ECONNRESET',
};

export const networkCode = (runtime: RuntimeName, client: ClientName): string =>
  client === 'axios-xhr' || client === 'axios-fetch' ? 'ERR_NETWORK' : FETCH_CODE[runtime];

/** One line per error down the cause chain: `TypeError "Failed to fetch" (code …) {props}`. */
export const describeShape = (shape: ErrorShape | null | undefined): string => {
  if (!shape) return 'nothing';
  const parts: string[] = [];
  for (let e: ErrorShape | undefined = shape; e; e = e.cause) {
    const name = e.className === e.name ? e.name : `${e.name} (${e.className})`;
    const code = e.code === undefined ? '' : ` code ${JSON.stringify(e.code)}`;
    const props = Object.entries(e.props ?? {})
      .filter(([key]) => key !== 'name')
      .map(([key, value]) => `${key}: ${value.length > 40 ? `${value.slice(0, 40)}…` : value}`);
    const message = e.message.length > 120 ? `${e.message.slice(0, 120)}…` : e.message;
    parts.push(`${name} ${JSON.stringify(message)}${code}${props.length ? ` {${props.join(', ')}}` : ''}`);
  }
  return parts.join(' <- cause: ');
};

/**
 * Routes whose `path` destroys every connection before any response byte until the client heals it
 * (`/heal`, which {@link healingClient} calls on its retry), then answers 200 with `body`. Every
 * request is destroyed until jitterbug decided to retry: Firefox, for one, sends a GET again by itself
 * (up to 10 times) when a connection closes before an answer, and this must reach jitterbug as a
 * failure however many times the runtime tried.
 */
export const healingRoutes = (path: string, body: string): Record<string, Script> => {
  let healed = false;
  const flaky: Script = () => (healed ? { status: 200, body } : { destroy: 'before-headers' });
  const heal: Script = () => {
    healed = true;
    return { status: 200, body: 'healed' };
  };
  return { [path]: flaky, '/heal': heal };
};

/** The client for {@link healingRoutes}: retries only on the runtime's network-failure code, and heals. */
export const healingClient = (ctx: RunContext): RuntimeClient =>
  ctx.connect({
    options: {
      errorCodes: [networkCode(ctx.runtime, ctx.client)],
      onRetry: async () => {
        await (await ctx.rawFetch(ctx.url('/heal'))).text();
      },
    },
  });
