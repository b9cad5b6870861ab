/**
 * Shares of a V8 CPU profile (the inspector's `Profiler.stop()` result, or a `.cpuprofile` file):
 * how much of a client's busy time was spent in jitterbug's own code, in the run's bookkeeping, and
 * in the peer's code. Pure functions, no I/O.
 */

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** jitterbug's packages, run from source or from a build. */
const JITTERBUG = /\/packages\/[^/]+\/(src|dist)\//;
const CORE = /\/packages\/core\/(src|dist)\//;

/**
 * The run's bookkeeping, by the outermost core function a sample is under: the run begun (with its
 * budget deposit and events), the response settled (the decision, the finish and the summary built),
 * and the summary stamped on what the caller gets.
 */
const BOOKKEEPING: Record<string, 'begin' | 'settle' | 'stamp'> = {
  begin: 'begin',
  RetryRun: 'begin',
  settle: 'settle',
  next: 'settle',
  setRetryInfo: 'stamp',
};

/** The peer's own code, where it is a module of its own (ky's retry is inside ky's one class). */
export const PEER_CODE: Readonly<Record<string, RegExp | undefined>> = {
  'undici-request': /undici\/lib\/(interceptor\/retry|handler\/retry-handler)\.js/,
  'undici-fetch': /undici\/lib\/(interceptor\/retry|handler\/retry-handler)\.js/,
  axios: /\/axios-retry\//,
  ky: undefined,
  fetch: /\/fetch-retry\//,
};

export interface Shares {
  /** Sampled time outside `(idle)`, µs. */
  readonly busyUs: number;
  /** Self time in jitterbug's packages (adapters and core). */
  readonly jitterbug: number;
  /** Time under a core function of the run's bookkeeping (callees included), by part. */
  readonly begin: number;
  readonly settle: number;
  readonly stamp: number;
  /** Self time in the peer's own files, where they are separate. */
  readonly peer: number;
  /** `(garbage collector)`. */
  readonly gc: number;
}

/** Each share as a fraction of the busy time. */
export const shares = (profile: CpuProfile, peer: RegExp | undefined): Shares => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    time.set(id, (time.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  });
  let busy = 0;
  const sums = { jitterbug: 0, begin: 0, settle: 0, stamp: 0, peer: 0, gc: 0 };
  for (const [id, us] of time) {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(idle)') continue;
    busy += us;
    if (leaf.functionName === '(garbage collector)') sums.gc += us;
    if (JITTERBUG.test(leaf.url)) sums.jitterbug += us;
    if (peer?.test(leaf.url)) sums.peer += us;
    // The outermost bookkeeping function on the stack decides the part.
    let part: 'begin' | 'settle' | 'stamp' | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const named = BOOKKEEPING[frame.functionName];
      if (named && CORE.test(frame.url)) part = named;
    }
    if (part) sums[part] += us;
  }
  const of = (us: number): number => (busy ? us / busy : Number.NaN);
  return {
    busyUs: busy,
    jitterbug: of(sums.jitterbug),
    begin: of(sums.begin),
    settle: of(sums.settle),
    stamp: of(sums.stamp),
    peer: of(sums.peer),
    gc: of(sums.gc),
  };
};
