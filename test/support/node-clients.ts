/**
 * The Node clients the real-server scenarios (nginx, HAProxy, Caddy) run, each with jitterbug
 * attached as a user would, reached over plain HTTP/1.1, HTTP/1.1 over TLS or HTTP/2, trusting the
 * server's certificate. They are the
 * conformance suite's drivers where those take a transport (withRetry over Node's fetch, axios'
 * http adapter, undici 8's `request()` and `fetch()`), and ky here, whose driver has no TLS.
 *
 * How each trusts the certificate (`NODE_EXTRA_CA_CERTS` is read once, at start-up, so a
 * certificate made by the test cannot go there): Node's global fetch (under withRetry and ky) gets
 * an undici 7 `Agent` with `connect: { ca }` as its `dispatcher` (Node 24's fetch takes undici 7
 * dispatchers, not undici 8's); axios an `https.Agent({ ca })`; undici 8 an `Agent` with
 * `connect: { ca }` (and `allowH2` for HTTP/2) composed with `retryInterceptor()`.
 */
import { getRetryInfo, kyRetry } from '@jitterbug/ky';
import ky, { type Options } from 'ky';
import { Agent } from 'undici7';
import type {
  ConformanceClient,
  ConformanceRequest,
  ConformanceResult,
  DriverOptions,
  Transport,
} from '../conformance/driver.ts';
import { policyOf } from '../conformance/driver.ts';
import { createAxiosClient } from '../conformance/drivers/axios.ts';
import { fetchDriver } from '../conformance/drivers/fetch.ts';
import { agentOptions } from '../conformance/drivers/transport.ts';
import { undiciDrivers } from '../conformance/drivers/undici.ts';

export type ClientName = 'fetch' | 'ky' | 'axios' | 'undici request' | 'undici fetch';

/** Every client, in the order reports list them. */
export const CLIENTS: readonly ClientName[] = ['fetch', 'ky', 'axios', 'undici request', 'undici fetch'];

/** The clients that speak HTTP/2 here: undici 8's (axios' `httpVersion: 2` hangs on a lost connection, see `test/conformance/axios-http2.test.ts`). */
export const H2_CLIENTS: readonly ClientName[] = ['undici request', 'undici fetch'];

/**
 * What each client speaks over TLS by default: HTTP/2 for undici 8's clients (with `allowH2`), and
 * HTTP/1.1 for Node's fetch, ky and axios, which is what they speak without being told otherwise.
 */
export const tlsTransport = (client: ClientName): Transport['name'] =>
  H2_CLIENTS.includes(client) ? 'h2' : 'tls';

const undici8 = (name: string) => {
  const driver = undiciDrivers.find((d) => d.name === name);
  if (!driver) throw new Error(`no conformance driver named ${name}`);
  return driver;
};

/** ky 2 with `kyRetry` on Node's fetch, through an undici 7 agent that trusts the transport's certificate. */
const createKyClient = (baseUrl: string, options: DriverOptions, transport: Transport): ConformanceClient => {
  const agent = new Agent(agentOptions(transport));
  // ky passes the `dispatcher` it does not know on to fetch (jitterbug's engine, then Node's fetch).
  const api = ky.create({ ...kyRetry(policyOf(options)), dispatcher: agent } as Options);
  return {
    async send(request: ConformanceRequest): Promise<ConformanceResult> {
      const body = request.body?.kind === 'text' ? { body: request.body.value } : {};
      try {
        const response = await api(new URL(request.path, baseUrl), {
          ...body,
          method: request.method,
          ...(request.headers ? { headers: request.headers } : {}),
        });
        const text = await response.text();
        return {
          outcome: { kind: 'response', status: response.status, body: text, headers: response.headers },
          info: getRetryInfo(response),
        };
      } catch (error) {
        // ky 2 reads an HTTPError's body itself; its status is the final answer.
        const { name, response } = error as { name?: string; response?: Response };
        const outcome =
          name === 'HTTPError' && response
            ? ({ kind: 'http-error', status: response.status, error } as const)
            : ({ kind: 'error', error } as const);
        return { outcome, info: getRetryInfo(error) };
      }
    },
    close: () => agent.close(),
  };
};

/** A client of nginx at `baseUrl` over `transport`, jitterbug attached with `options`. */
export const createClient = async (
  client: ClientName,
  baseUrl: string,
  options: DriverOptions,
  transport: Transport,
): Promise<ConformanceClient> => {
  switch (client) {
    case 'fetch':
      return fetchDriver.create(baseUrl, options, transport);
    case 'ky':
      return createKyClient(baseUrl, options, transport);
    case 'axios':
      return createAxiosClient(baseUrl, options, { adapter: 'http', transport });
    case 'undici request':
      return undici8('undici request (undici 8)').create(baseUrl, options, transport);
    case 'undici fetch':
      return undici8('undici fetch (undici 8)').create(baseUrl, options, transport);
  }
};
