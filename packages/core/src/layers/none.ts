/**
 * Nested retry layers outside Node: no undici interceptor can run here, so nothing is marked (see
 * `node.ts`). Layers that wrap each other's `fetch` see each other through `layer.ts` instead.
 */

export const marking = (): boolean => false;

export const asLayer = <T>(send: () => T): T => send();

export const insideLayer = (): boolean => false;

export const interceptorMade = (): void => {};
