/**
 * `@jitterbug/core/store`: the port a shared store implements, the in-memory store, and the
 * operations the fleet's budget, pacer and breaker run on a store, each with its JavaScript and Lua
 * body. See "Shared stores" in the core's README.
 *
 * @packageDocumentation
 */

export { createCircuitBreaker } from '../features/fleet-breaker.ts';
export {
  createRetryBudget,
  FleetBudgetError,
  type FleetBudgetOptions,
} from '../features/fleet-budget.ts';
export { createPacer, type FleetPacerOptions } from '../features/fleet-pacer.ts';
export { type AppliedOperation, applyOperation, keptFor, MAX_TTL_MS } from './apply.ts';
export {
  BREAKER_MAX_INSTANCES,
  BREAKER_PROBE,
  BREAKER_REPORT,
  BREAKER_SETTLE,
  claimProbe,
  FLEET_CLOSED,
  FLEET_HALF_OPEN,
  FLEET_OPEN,
  type FleetBreakerSettings,
  type FleetCircuit,
  type FleetProbe,
  type FleetReport,
  newInstanceId,
  reportBreak,
  settleProbe,
} from './breaker.ts';
export { BUDGET_LEASE, type BudgetLease, type BudgetLeaseRequest, leaseBudget } from './budget-lease.ts';
export {
  argsWithinLimit,
  decodeState,
  encodeState,
  formatNumber,
  NUMBER_LIMIT,
  parseNumber,
} from './codec.ts';
export {
  GCRA_LIMIT,
  GCRA_TAKE,
  limitPace,
  type Pace,
  type PaceHold,
  type PaceLimit,
  type PaceRequest,
  takePace,
} from './gcra.ts';
export { type CallGuard, type CallGuardOptions, createCallGuard } from './guard.ts';
export { LUA_PRELUDE, luaScript, luaStepScript } from './lua.ts';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory.ts';
export { STORE_OPERATIONS } from './operations.ts';
export type {
  SharedStore,
  StoreFailure,
  StoreOperation,
  StoreReply,
  StoreResult,
  StoreStep,
} from './port.ts';
export { runOperation } from './run-operation.ts';
