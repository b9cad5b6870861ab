/**
 * Whether a client came back no sooner than a server's `Retry-After` said, by the server's own log:
 * for each path, every request after a 429 started at least that long after the 429 ended.
 */
import { expect } from 'vitest';
import type { RequestLogLine } from './log-file.ts';

/**
 * For each of `paths`, every request after a 429 started at least `retryAfterSeconds` after the 429
 * ended (less 3 ms: a server's log rounds its times).
 */
export const expectRetriesAfter429 = (
  log: readonly RequestLogLine[],
  paths: readonly string[],
  retryAfterSeconds: number,
): void => {
  for (const path of paths) {
    const lines = log.filter((l) => l.uri === path);
    for (let i = 1; i < lines.length; i++)
      if (lines[i - 1]!.status === 429)
        expect(lines[i]!.startMs - lines[i - 1]!.endMs).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 3);
  }
};
