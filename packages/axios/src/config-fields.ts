/**
 * The few fields an attempt changes on the caller's own config, set for the attempt and put back.
 * In place, for the attempt's duration only: axios' config is a dictionary-mode object whose copy
 * cost ~2.5 µs per request, and the response and errors then carry the caller's config as they
 * would without jitterbug. Nothing else sees the config between two attempts.
 */
import type { InternalAxiosRequestConfig } from 'axios';

type AttemptField = 'data' | 'signal' | 'responseType' | 'validateStatus' | 'maxContentLength';

/** What to put back, three entries per field: its name, whether the config had it, its value. */
export type SavedFields = unknown[];

// Nothing to put back: the default success path (no buffered stream, no attempt timer) allocates nothing.
const NOTHING: SavedFields = [];

const overrideField = (
  config: InternalAxiosRequestConfig,
  saved: SavedFields,
  field: AttemptField,
  value: unknown,
): void => {
  const target = config as unknown as Record<AttemptField, unknown>;
  saved.push(field, Object.hasOwn(config, field), target[field]);
  target[field] = value;
};

/**
 * Sets what an attempt changes on the config: the body to send (a buffered stream's bytes), the
 * attempt timer's signal, and in stream mode the stream response with no `validateStatus` and no
 * `maxContentLength` (jitterbug applies both itself).
 */
export const overrideAttemptFields = (
  config: InternalAxiosRequestConfig,
  data: unknown,
  timerSignal: AbortSignal | undefined,
  streamMode: boolean,
): SavedFields => {
  if (data === config.data && !timerSignal && !streamMode) return NOTHING;
  const saved: SavedFields = [];
  if (data !== config.data) overrideField(config, saved, 'data', data);
  if (timerSignal) overrideField(config, saved, 'signal', timerSignal);
  if (streamMode) {
    overrideField(config, saved, 'responseType', 'stream');
    overrideField(config, saved, 'validateStatus', null);
    overrideField(config, saved, 'maxContentLength', -1);
  }
  return saved;
};

/** Puts the fields back as the caller had them (present or not). Twice is harmless. */
export const restoreFields = (config: InternalAxiosRequestConfig, saved: SavedFields): void => {
  const target = config as unknown as Record<AttemptField, unknown>;
  for (let i = 0; i < saved.length; i += 3) {
    const field = saved[i] as AttemptField;
    if (saved[i + 1]) target[field] = saved[i + 2];
    else delete target[field];
  }
};
