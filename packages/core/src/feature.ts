/**
 * What an opt-in feature's factory returns carries a brand, and the options check for it: the
 * options then need no import of the feature (a bundler leaves out a feature that is never
 * imported), and a look-alike object is refused by name rather than failing mid-request.
 * `Symbol.for`, so that two copies of the package accept each other's features.
 */
const FEATURE = Symbol.for('jitterbug.feature');

/** The opt-in features, by the option that takes them. */
export type FeatureKind = 'hedge' | 'cooldown' | 'throttle' | 'resume';

/** `value`, branded as made by the factory of `kind`. */
export const branded = <T extends object>(value: T, kind: FeatureKind): T =>
  Object.defineProperty(value, FEATURE, { value: kind });

/** Whether `value` was made by the factory of `kind`. */
export const isFeature = (value: unknown, kind: FeatureKind): boolean =>
  typeof value === 'object' && value !== null && (value as { [FEATURE]?: unknown })[FEATURE] === kind;
