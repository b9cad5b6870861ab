/** Handing the run's summary over with whatever the caller gets. */
import { type RetryRun, setRetryInfo } from '@jitterbug/core/adapter';

/** Attaches the finished run's summary to `target` (for `getRetryInfo`), and returns it. */
export const tagged = <T>(target: T, run: RetryRun): T => {
  if (run.summary) setRetryInfo(target, run.summary);
  return target;
};
