/**
 * What the real-server scenarios do with a client: send many requests, some at a time, and read
 * what each one ended with, in words that name the reason.
 */
import type { ConformanceClient, ConformanceRequest, ConformanceResult } from '../conformance/driver.ts';

export interface Sent {
  readonly request: ConformanceRequest;
  readonly result: ConformanceResult;
}

/** Sends every request through `client`, `inFlight` at a time (each next one as one ends), in order of start. */
export const sendAll = async (
  client: ConformanceClient,
  requests: readonly ConformanceRequest[],
  inFlight: number,
): Promise<Sent[]> => {
  const sent: Sent[] = new Array(requests.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < requests.length) {
      const i = next++;
      const request = requests[i]!;
      sent[i] = { request, result: await client.send(request) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, requests.length) }, lane));
  return sent;
};

/** The innermost code and message on an error's cause chain, e.g. `UND_ERR_INFO HTTP/2: "GOAWAY" …`. */
const describeError = (error: unknown): string => {
  let found = '';
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e; ) {
    if (typeof e.code === 'string') found = `${e.code} ${String(e.message)}`;
    else if (found === '' && typeof e.message === 'string') found = e.message;
    e = typeof e.cause === 'object' && e.cause !== null ? (e.cause as typeof e) : undefined;
  }
  return found;
};

/**
 * What one request ended with, in words that name the reason: `200`, `429 budget-exhausted`,
 * `error max-attempts UND_ERR_SOCKET other side closed`.
 */
export const ending = ({ result }: Sent): string => {
  const { outcome, info } = result;
  if (outcome.kind !== 'error') return outcome.status === 200 ? '200' : `${outcome.status} ${info?.reason}`;
  return `error ${info?.reason} ${describeError(outcome.error)}`;
};

/** How many requests ended each way: `{ '200': 30 }` when every one succeeded. */
export const endings = (sent: readonly Sent[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const s of sent) {
    const key = ending(s);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

/** How many times each value occurs. */
export const countBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};
