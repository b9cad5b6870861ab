/**
 * Every operation the core defines, by name: what a store that receives an operation's name rather
 * than its body (a Durable Object, behind its stub) runs.
 */
import { BREAKER_PROBE, BREAKER_REPORT, BREAKER_SETTLE } from './breaker.ts';
import { BUDGET_LEASE } from './budget-lease.ts';
import { GCRA_LIMIT, GCRA_TAKE } from './gcra.ts';
import type { StoreOperation } from './port.ts';

/** The core's operations, by `name`. */
export const STORE_OPERATIONS: ReadonlyMap<string, StoreOperation> = new Map(
  [BUDGET_LEASE, GCRA_TAKE, GCRA_LIMIT, BREAKER_REPORT, BREAKER_PROBE, BREAKER_SETTLE].map((op) => [
    op.name,
    op,
  ]),
);
