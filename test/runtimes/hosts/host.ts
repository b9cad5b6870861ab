/** A runtime that runs jobs: a browser page, a child process, a workerd worker. */
import type { Job, JobReply } from '../protocol.ts';

export interface RuntimeHost {
  /** What runs the jobs, as the runtime reports its version (`Chromium 156.0…`, `Bun 1.4.5`). */
  readonly version: string;
  /** Runs one job; rejects only when the runtime itself failed (crashed, closed). */
  run(job: Job): Promise<JobReply>;
  /** Stops the runtime and everything it started. */
  close(): Promise<void>;
}
