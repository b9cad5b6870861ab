/**
 * The few fields an attempt changes on the caller's own config, set for the attempt and put back.
 * In place, for the attempt's duration only: axios' config is a dictionary-mode object whose copy
 * cost ~2.5 µs per request, and the response and errors then carry the caller's config as they
 * would without jitterbug. Nothing else sees the config between two attempts.
 */
import type { InternalAxiosRequestConfig } from 'axios';

type AttemptField = 'data' | 'signal' | 'responseType' | 'validateStatus' | 'maxContentLength';

/** A field an attempt sets, and the value it sets it to. */
export type AttemptFieldValue = readonly [field: AttemptField, value: unknown];

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
 * attempt timer's signal, and the fields its stream mode sets, if it is read in one (they are
 * stream mode's, so that a bundle without it does not carry them).
 */
export const overrideAttemptFields = (
  config: InternalAxiosRequestConfig,
  data: unknown,
  timerSignal: AbortSignal | undefined,
  modeFields: readonly AttemptFieldValue[] | undefined,
): SavedFields => {
  if (data === config.data && !timerSignal && !modeFields) return NOTHING;
  const saved: SavedFields = [];
  if (data !== config.data) overrideField(config, saved, 'data', data);
  if (timerSignal) overrideField(config, saved, 'signal', timerSignal);
  if (modeFields) for (const [field, value] of modeFields) overrideField(config, saved, field, value);
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
