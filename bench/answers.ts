/**
 * What the bench answers for a path, over loopback (`server.ts`) and in memory (`fake-transports.ts`)
 * alike: `/ok/<size>` is 200 with that body, `/flaky?id=…` is 503 the first time an id is seen and
 * 200 (50 bytes) the second time (then the id is forgotten), anything else 200 with the 50-byte body.
 */
import { BODIES, type SizeName } from './bodies.ts';

export interface Answer {
  readonly status: number;
  readonly body: Buffer;
}

const OK: Answer = { status: 200, body: BODIES['50B'] };
const BY_PATH = new Map<string, Answer>(
  (Object.entries(BODIES) as [SizeName, Buffer][]).map(([size, body]) => [
    `/ok/${size}`,
    { status: 200, body },
  ]),
);
const UNAVAILABLE: Answer = {
  status: 503,
  body: Buffer.from(JSON.stringify({ ok: false, error: 'unavailable' })),
};

/** Answers one request for `path` (path and query); remembers the flaky ids it has refused. */
export const answerer = (): { answer(path: string): Answer; readonly pendingFlaky: number } => {
  const seen = new Set<string>();
  return {
    answer(path) {
      const fixed = BY_PATH.get(path);
      if (fixed) return fixed;
      if (!path.startsWith('/flaky')) return OK;
      const id = path.slice(path.indexOf('id=') + 3);
      if (seen.delete(id)) return OK;
      seen.add(id);
      return UNAVAILABLE;
    },
    get pendingFlaky() {
      return seen.size;
    },
  };
};
