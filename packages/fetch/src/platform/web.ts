/**
 * The engine's platform part where Node's is not (browsers, workers), chosen by the `default`
 * condition of the package's `#platform` import: their fetch says nothing of the connection a
 * request went on, so no failure reads as a kept connection lost.
 */
export const lostKeptConnection = (_error: unknown): boolean => false;

/**
 * A browser's failed fetch says "Failed to fetch" and nothing more (as workerd's does): no failure
 * shows that a request was not processed, so a request is sent again only when the policy retries
 * it, and no copy is kept for a transparent retry.
 */
export const failuresProveUnsent = false;
