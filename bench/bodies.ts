/**
 * The JSON bodies the bench server answers with: the 50-byte one every earlier run used, and the
 * sizes a real API returns (a page of about 4 KB and a listing of about 64 KB), so that the table
 * shows how a fixed per-request overhead shrinks as the response grows.
 */

/** Response sizes measured on the success path, by path segment (`/ok/<size>`). */
export const SIZES = ['50B', '4KB', '64KB'] as const;
export type SizeName = (typeof SIZES)[number];

/** Records of a plausible listing endpoint, until the JSON text reaches `bytes`. */
const listing = (bytes: number): string => {
  const items: unknown[] = [];
  let text = '';
  for (let id = 1; ; id++) {
    items.push({
      id,
      name: `item ${id}`,
      email: `user${id}@example.com`,
      active: id % 3 !== 0,
      score: Math.round(((id * 7919) % 1000) * 1.37) / 10,
      tags: ['alpha', 'beta', 'gamma'].slice(0, 1 + (id % 3)),
      createdAt: new Date(Date.UTC(2026, 0, 1 + (id % 28), id % 24)).toISOString(),
    });
    const next = JSON.stringify({ ok: true, page: 1, items });
    if (next.length > bytes) return text;
    text = next;
  }
};

export const BODIES: Record<SizeName, Buffer> = {
  '50B': Buffer.from(JSON.stringify({ ok: true, items: [1, 2, 3], name: 'jitterbug' })),
  '4KB': Buffer.from(listing(4 * 1024)),
  '64KB': Buffer.from(listing(64 * 1024)),
};

/** The path that answers 200 with the body of `size`. */
export const okPath = (size: SizeName): string => `/ok/${size}`;
