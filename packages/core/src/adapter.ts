/**
 * `@jitterbug/core/adapter`: what an adapter needs to plug a client into the core, and a user does
 * not. See "Writing an adapter" in the core's README.
 *
 * @packageDocumentation
 */
export { attemptMayRetry, transparentRetryLeft } from './attempt-may-retry.ts';
export { awaitTurn } from './await-turn.ts';
export { type BodyKind, type BufferedStream, bodyKind, bufferStream, bufferWebStream } from './body.ts';
export { holdWait } from './cooldown.ts';
export { decideByStatus, defaultRetry, methodAllowsRetry } from './decide.ts';
export { describeError, errorCode } from './errors.ts';
export { forceRetry } from './force.ts';
export type { HedgedCopies } from './hedge-race.ts';
export { mayRetry, maySendAgain } from './may-retry.ts';
export {
  type AttemptResult,
  createPolicy,
  type RetryRequest,
  RetryRun,
  type RouteTable,
  toRetryPolicy,
  upperMethod,
} from './policy.ts';
export { type PrivateSlot, privateSlot } from './private-slot.ts';
export { type RefusableRun, refuse } from './refuse.ts';
export { resumeDecision } from './resume.ts';
export { setRetryInfo } from './retry-info.ts';
