/**
 * The JSON bodies the bench server answers with: the 50-byte one every earlier run used, and the
 * sizes a real API returns (a page of about 4 KB and a listing of about 64 KB), so that the table
 * shows how a fixed per-request overhead shrinks as the response grows.
 */

/** Response sizes measured on the success path, by path segment (`/ok/<size>`). */
export const SIZES = ['50B', '4KB', '64KB'] as const;
export type SizeName = (typeof SIZES)[number];

/**
 * Records of a plausible listing endpoint, as many as fit in `bytes` of JSON text. Each record is
 * serialised once (re-serialising the growing list for every record took half a billion
 * instructions at start-up, which the instruction counts' processes pay too).
 */
const listing = (bytes: number): string => {
  const head = '{"ok":true,"page":1,"items":[';
  const tail = ']}';
  const items: string[] = [];
  let length = head.length + tail.length;
  for (let id = 1; ; id++) {
    const item = JSON.stringify({
      id,
      name: `item ${id}`,
      email: `user${id}@example.com`,
      active: id % 3 !== 0,
      score: Math.round(((id * 7919) % 1000) * 1.37) / 10,
      tags: ['alpha', 'beta', 'gamma'].slice(0, 1 + (id % 3)),
      createdAt: new Date(Date.UTC(2026, 0, 1 + (id % 28), id % 24)).toISOString(),
    });
    const next = length + item.length + (items.length > 0 ? 1 : 0);
    if (next > bytes) return `${head}${items.join(',')}${tail}`;
    items.push(item);
    length = next;
  }
};

export const BODIES: Record<SizeName, Buffer> = {
  '50B': Buffer.from(JSON.stringify({ ok: true, items: [1, 2, 3], name: 'jitterbug' })),
  '4KB': Buffer.from(listing(4 * 1024)),
  '64KB': Buffer.from(listing(64 * 1024)),
};

/** The path that answers 200 with the body of `size`. */
export const okPath = (size: SizeName): string => `/ok/${size}`;
