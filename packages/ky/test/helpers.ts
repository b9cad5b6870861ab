/** Test helpers: a sleep that records the waits asked for and resolves at once (or on abort). */
import { sleep as realSleep } from '@jitterbug/core/adapter';
import ky2 from 'ky';
import ky1 from 'ky1';

export const recordingSleep = (): {
  waits: number[];
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
} => {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms, signal) => {
      waits.push(ms);
      return realSleep(0, signal);
    },
  };
};

/** Both ky majors, typed as ky 2 (their runtime options are the same). */
export const kys: readonly (readonly [string, typeof ky2])[] = [
  ['ky 2', ky2],
  ['ky 1', ky1 as unknown as typeof ky2],
];
