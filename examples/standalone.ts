/**
 * Lets each example run on its own (`node --conditions=@jitterbug/source examples/<name>.ts`):
 * starts the local flaky server, runs the example against it, and stops the server.
 */
import { type FlakyServer, startFlakyServer } from './flaky-server.ts';

/** What every example exports: run against `server`, print with `log`. */
export type Example = (server: FlakyServer, log: (line: string) => void) => Promise<void>;

export const runStandalone = async (example: Example): Promise<void> => {
  const server = await startFlakyServer();
  try {
    await example(server, console.log);
  } finally {
    await server.close();
  }
};
