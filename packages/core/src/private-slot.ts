/**
 * A slot that attaches a value to any object invisibly, for adapters: the summary on a response,
 * a call's state on a client's per-call object.
 *
 * The value is stamped on the object as a class private field (a base class whose constructor
 * returns the object it is given lets a subclass add its field to any object). Such a field is
 * invisible to `Object.keys`, symbols, JSON, spreads, proxies' traps and deep equality, and can be
 * added to frozen objects. On a client's success path, where this code runs with cold caches, it
 * measured 0.35 µs per object against 2.1 µs for `Object.defineProperty` with a symbol and 1.7 µs
 * for a `WeakMap` entry (whose ephemeron the garbage collector also has to trace).
 */

// The constructor returns `target`, so `super(target)` makes `target` the subclass's `this`.
class Stamped {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the stamp relies on it (see above).
    return target as Stamped;
  }
}

/** A value slot on objects; see {@link privateSlot}. */
export interface PrivateSlot<T> {
  /** Attaches `value` to `target`, replacing what this slot held there. */
  set(target: object, value: T): void;
  /** The value this slot holds on `target`, if any. */
  get(target: object): T | undefined;
}

/**
 * A new slot: each one is its own private field, seen only through it. Where an engine refuses the
 * stamp (one that applies non-extensibility to private fields, on a frozen object), the value is
 * kept in a `WeakMap` instead, so `set` never loses it.
 */
export const privateSlot = <T>(): PrivateSlot<T> => {
  class Slot extends Stamped {
    #value: T;

    /** Throws a `TypeError` when `target` holds this slot already (or refuses the stamp). */
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }

    static replace(target: object, value: T): boolean {
      if (!(#value in target)) return false;
      (target as Slot).#value = value;
      return true;
    }

    static read(target: object): T | undefined {
      return #value in target ? (target as Slot).#value : undefined;
    }
  }
  let refused: WeakMap<object, T> | undefined;
  return {
    set(target, value) {
      // Stamped first and checked only when that fails: a `#value in target` check before every
      // stamp cost more than the stamp itself on the success path. Objects stamped twice are rare.
      try {
        new Slot(target, value);
      } catch {
        if (Slot.replace(target, value)) return;
        refused ??= new WeakMap();
        refused.set(target, value);
      }
    },
    get: (target) => Slot.read(target) ?? refused?.get(target),
  };
};
