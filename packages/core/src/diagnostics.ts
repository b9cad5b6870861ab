/**
 * `@jitterbug/core/diagnostics`: the names of the channels jitterbug publishes on
 * `node:diagnostics_channel`, and the messages each carries (`@jitterbug/otel` subscribes to them).
 *
 * @packageDocumentation
 */
export {
  type AttemptEndMessage,
  type AttemptStartMessage,
  CHANNELS,
  type GiveUpMessage,
  type RetryMessage,
  type RunEndMessage,
  type RunIdentity,
  type RunStartMessage,
} from './diagnostics/messages.ts';
