/**
 * Route rules that matched none of their policy's requests, told in development when a run ends by
 * itself (Node's `beforeExit`: a script, a job; not a server stopped with a signal, which ends
 * without it): a rule that matches nothing (a typo, a path written under a base URL the client does
 * not have) otherwise fails silently. Not under `NODE_ENV=test`, where a run sends a part of the
 * requests on purpose, nor `production`. Counting wraps the route table's `resolve` here, so that a
 * production build counts nothing.
 */
import { hostProcess, nodeEnv, warn } from './warn.ts';

/** What is counted of one policy's route table. */
interface Counts {
  readonly table: Table;
  readonly hits: number[];
  /** A request no rule matched (method and path), to show. */
  unmatched: string | undefined;
  seen: boolean;
}

/** The route table as `create-retry-policy.ts` makes it. */
interface Table {
  resolve(upperMethod: string, url: string | URL, base?: unknown): object | undefined;
  readonly options: readonly { readonly route?: string | undefined }[];
}

const watched = new Set<WeakRef<Counts>>();
let listening = false;

const pathOf = (url: string | URL): string => {
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return String(url);
  }
};

const report = (): void => {
  for (const ref of watched) {
    const counts = ref.deref();
    if (!counts?.seen) continue;
    counts.hits.forEach((hits, i) => {
      if (hits > 0) return;
      const example = counts.unmatched ? ` (${counts.unmatched} matched no rule)` : '';
      warn(
        `jitterbug: route rule routes[${i}] (${JSON.stringify(counts.table.options[i]?.route)}) matched none of its policy's requests${example}: check its method and its path (matched exactly, case included; under a client's base URL the call's own path matches too), or ignore this if this run sent none of its requests`,
        'JITTERBUG_ROUTE_UNUSED',
      );
    });
  }
  watched.clear();
};

/**
 * Counts which rules of `table` match a request (each named by its `route`: its name or pattern),
 * to tell at the end of the run those that matched none.
 */
export const watchRoutes = (table: Table): void => {
  const env = nodeEnv();
  const host = hostProcess() as { once?: (event: string, listener: () => void) => void } | undefined;
  if (env === 'test' || env === 'production' || typeof host?.once !== 'function') return;
  const counts: Counts = { table, hits: table.options.map(() => 0), unmatched: undefined, seen: false };
  const resolve = table.resolve;
  table.resolve = (method, url, base) => {
    const found = resolve(method, url, base);
    counts.seen = true;
    const i = found === undefined ? -1 : table.options.indexOf(found);
    if (i >= 0) counts.hits[i]! += 1;
    else counts.unmatched ??= `${method} ${pathOf(url)}`;
    return found;
  };
  // Policies made and dropped (one per request) are not kept: only a weak reference is.
  if (watched.size >= 64) for (const ref of watched) if (!ref.deref()) watched.delete(ref);
  watched.add(new WeakRef(counts));
  if (!listening) {
    listening = true;
    host.once('beforeExit', report);
  }
};
