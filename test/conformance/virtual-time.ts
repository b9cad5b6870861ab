/**
 * A clock and a sleep for a policy, in virtual time, for scenarios that assert exact waits over a
 * real server: the clock moves only when every request the scenario has out is asleep, and then
 * straight to the earliest wake-up. While a request is on its way to the server (or its answer on its
 * way back) the clock stands still, so the server can read the time a request was sent, and a wait
 * of two seconds costs none.
 */
export interface VirtualTime {
  /** The policy's clock. */
  readonly now: () => number;
  /** The waits asked for, in order. */
  readonly waits: readonly number[];
  /** The policy's sleep: wakes at `now() + ms` of virtual time, or rejects with the signal's reason. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Counts `request` among those out until it settles. */
  track<T>(request: Promise<T>): Promise<T>;
  /**
   * Keeps the clock where it is until the returned function is called (while the scenario is still
   * sending requests that belong to the same moment).
   */
  hold(): () => void;
}

interface Sleeper {
  readonly at: number;
  readonly wake: () => void;
}

export const virtualTime = (startMs: number): VirtualTime => {
  let nowMs = startMs;
  let out = 0;
  let holds = 0;
  const sleepers: Sleeper[] = [];
  const waits: number[] = [];
  let pending = false;

  // Looked at after the event loop had its turn: a request that just woke may be about to sleep again.
  const step = (): void => {
    pending = false;
    if (holds > 0 || sleepers.length === 0 || sleepers.length < out) return;
    let next = 0;
    for (let i = 1; i < sleepers.length; i++) if (sleepers[i]!.at < sleepers[next]!.at) next = i;
    const [sleeper] = sleepers.splice(next, 1);
    nowMs = Math.max(nowMs, sleeper!.at);
    sleeper!.wake();
  };
  const schedule = (): void => {
    if (pending) return;
    pending = true;
    setImmediate(step);
  };

  return {
    now: () => nowMs,
    waits,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        waits.push(ms);
        if (signal?.aborted) return reject(signal.reason);
        const sleeper: Sleeper = {
          at: nowMs + ms,
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          const i = sleepers.indexOf(sleeper);
          if (i >= 0) sleepers.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        schedule();
      }),
    track(request) {
      out++;
      const done = (): void => {
        out--;
        schedule();
      };
      request.then(done, done);
      return request;
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        schedule();
      };
    },
  };
};
