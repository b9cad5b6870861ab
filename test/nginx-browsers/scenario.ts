/**
 * What a browser scenario gets on the Node side: the stack, the browser's two pages (on `site`
 * and on `rotating`), the client under test, a path prefix of its own, and a way to record what
 * it measured (printed with the test's output, for the record).
 */
import type { BrowserName } from '../runtimes/hosts/launch-browser.ts';
import type { NginxPage } from './browser.ts';
import type { ClientName, PageOutcome } from './protocol.ts';
import type { BrowserStack } from './stack.ts';

export interface ScenarioContext {
  readonly browser: BrowserName;
  readonly client: ClientName;
  readonly stack: BrowserStack;
  /** The page served by `site` (the API same-origin there, cross-origin on `api` and `rotating`), or by `rotating`. */
  page(server: 'site' | 'rotating'): NginxPage;
  /** `/api/<area>/<browser>/<client>`: the scenario's paths, which no other test uses. */
  prefix(area: string): string;
  /** A measurement, printed under the test. */
  report(line: string): void;
}

/** What a request ended with, in a few words: `200`, `http-error 502 max-attempts`, `error method-not-idempotent`, `pending`. */
export const ending = (o: PageOutcome): string => {
  if (o.kind === 'pending') return o.stuck ? 'pending (stuck after abort)' : 'pending';
  if (o.kind === 'response' && o.status === 200) return '200';
  return [o.kind, o.status, o.info?.reason].filter((p) => p !== null && p !== undefined).join(' ');
};

/** How many times each value occurs, as an object that prints in order of first occurrence. */
export const tally = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

/** A request not settled this long after its job began counts as pending (ky's own timeout is 10 s). */
export const PENDING_AFTER_MS = 8_000;
