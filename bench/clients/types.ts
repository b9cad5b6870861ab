/** What a benchmark client variant provides: one GET, its final status, and a way to shut down. */
export interface BenchClient {
  /** GETs `path` (relative to the server's origin), reads the JSON body, returns the final status. */
  get(path: string): Promise<number>;
  /** Closes the client's connections and timers. */
  close(): Promise<void>;
}

/** The three variants measured for every client. */
export type VariantKind = 'raw' | 'jitterbug' | 'peer';

/** The clients measured. */
export type ClientName = 'undici-request' | 'undici-fetch' | 'axios' | 'ky' | 'fetch';

export type ClientFactory = (origin: string) => Promise<BenchClient>;
