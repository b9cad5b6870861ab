/**
 * Subscribes handlers to jitterbug's `node:diagnostics_channel` channels, by name (so the core
 * publishes to them wherever it is loaded from, even a second copy), and unsubscribes them all.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  type AttemptEndMessage,
  type AttemptStartMessage,
  CHANNELS,
  type GiveUpMessage,
  type RetryMessage,
  type RunEndMessage,
  type RunStartMessage,
} from '@jitterbug/core/diagnostics';

/** A handler per channel, by its key in `CHANNELS`. */
export interface ChannelHandlers {
  readonly runStart: (message: RunStartMessage) => void;
  readonly attemptStart: (message: AttemptStartMessage) => void;
  readonly attemptEnd: (message: AttemptEndMessage) => void;
  readonly retry: (message: RetryMessage) => void;
  readonly giveUp: (message: GiveUpMessage) => void;
  readonly runEnd: (message: RunEndMessage) => void;
}

/** Subscribes every handler; returns the function that unsubscribes them all (once). */
export const subscribeChannels = (handlers: ChannelHandlers): (() => void) => {
  const subscribed = (Object.keys(CHANNELS) as (keyof typeof CHANNELS)[]).map((key) => {
    const name = CHANNELS[key];
    const handler = handlers[key] as (message: unknown) => void;
    subscribe(name, handler);
    return () => unsubscribe(name, handler);
  });
  return () => {
    for (const unsubscribeOne of subscribed.splice(0)) unsubscribeOne();
  };
};
