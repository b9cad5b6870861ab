/**
 * The channels, where `node:diagnostics_channel` exists (Node, Bun, Deno): chosen by the `node`
 * condition of the package's `#diagnostics` import. A message is built only for a channel that has
 * subscribers.
 */
import { channel } from 'node:diagnostics_channel';
import { CHANNELS, type Channels } from './messages.ts';

/** Whether events can be published at all (a constant, so bundlers drop the publishing code where not). */
export const observed = true;

export const channels: Channels = {
  runStart: channel(CHANNELS.runStart),
  attemptStart: channel(CHANNELS.attemptStart),
  attemptEnd: channel(CHANNELS.attemptEnd),
  retry: channel(CHANNELS.retry),
  giveUp: channel(CHANNELS.giveUp),
  runEnd: channel(CHANNELS.runEnd),
} as unknown as Channels;
