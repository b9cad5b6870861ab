/**
 * The fleet's circuit breaker: the circuit breaker (`circuit-breaker.ts`) with the store's breaker
 * operations, so that a program that never shares a circuit carries none of them (their Lua bodies
 * among them).
 */
import { claimProbe, newInstanceId, reportBreak, settleProbe } from '../store/breaker.ts';
import { type CircuitBreaker, type CircuitBreakerOptions, circuitBreaker } from './circuit-breaker.ts';

const OPERATIONS = { reportBreak, claimProbe, settleProbe, newInstanceId };

/**
 * Creates a circuit breaker the fleet shares through `options.store`:
 * `breaker: createCircuitBreaker({ store, quorum })`, in every process. Without a store, the core's.
 *
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createCircuitBreaker = (options: CircuitBreakerOptions = {}): CircuitBreaker =>
  circuitBreaker(options, OPERATIONS);
