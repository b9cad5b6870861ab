/**
 * The engine's platform part where Node's is not (browsers, Deno, workers), chosen by the `default`
 * condition of the package's `#platform` import: their fetch says nothing of the connection a
 * request went on, so no failure reads as a kept connection lost.
 */
export const lostKeptConnection = (_error: unknown): boolean => false;
