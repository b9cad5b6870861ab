/**
 * Generated idempotency keys, from `createIdempotencyKeys()`: a request whose method is not retried
 * by itself (a POST, a PATCH) and that carries no key gets one on its first attempt —
 * `crypto.randomUUID()`, or your function's — and the same key on every retry, hedged copy and
 * resume: such a request is then retried safely with no code of yours. A key the caller set is
 * never replaced. A factory, so that a program that never generates keys does not carry it.
 */
import { requestEditing } from '../attempt-edits.ts';
import { checkFields, fail, isHeaderName } from '../option-error.ts';
import type { HeaderGetter } from '../retry-after.ts';
import type { RunOptions } from '../run-options.ts';
import type { RequestEditing } from '../types.ts';
import { branded, isFeature } from './feature.ts';

/** The options of `createIdempotencyKeys(options)`. */
export interface IdempotencyKeyOptions {
  /** The header. Default `'Idempotency-Key'`. */
  readonly header?: string;
  /**
   * Makes the key a request whose method is not retried by itself (a POST, a PATCH) and that carries
   * none gets on its first attempt, and keeps on every retry, hedged copy and resume: such a request
   * is then retried safely with no code of yours. A key the caller set is never replaced. Default
   * `() => crypto.randomUUID()`.
   */
  readonly generate?: () => string;
}

/** What `createIdempotencyKeys()` returns: the header, and what makes a request's key. */
export interface IdempotencyKeys {
  /** The header, in lower case (as compared). */
  readonly header: string;
  /**
   * The key a request gets: one when its method is not retried by itself and it carries none,
   * else `undefined`.
   *
   * @throws TypeError naming `generate` when the generator gives no usable value.
   */
  key(options: Pick<RunOptions, 'methods'>, upperMethod: string, headers: HeaderGetter): string | undefined;
  /** The edits that set the key on a request (brought by this factory: see `createRequestEdits`). */
  readonly edits: RequestEditing;
}

const NAME = 'createIdempotencyKeys(options)';

/**
 * Creates generated idempotency keys for the `idempotencyKey` option.
 *
 * @throws TypeError naming the field when `header` is not a header name or `generate` no function.
 */
export const createIdempotencyKeys = (options: IdempotencyKeyOptions = {}): IdempotencyKeys => {
  const checked = checkFields(
    options,
    NAME,
    { header: 'Idempotency-Key', generate: () => crypto.randomUUID() },
    {
      header: (v, n) => (isHeaderName(v) ? v.toLowerCase() : fail(n, 'a header name', v)),
      generate: (v, n) => (typeof v === 'function' ? v : fail(n, 'a function', v)),
    },
  );
  const header = checked.header as string;
  const generate = checked.generate as () => unknown;
  return branded(
    {
      header,
      edits: requestEditing,
      key(o: Pick<RunOptions, 'methods'>, upperMethod: string, headers: HeaderGetter) {
        if (o.methods.has(upperMethod) || headers(header)?.trim()) return undefined;
        const key = generate();
        if (typeof key !== 'string' || key.trim() === '' || /[\r\n\0]/.test(key)) {
          fail(`${NAME}.generate`, 'a function returning a non-empty header value', key);
        }
        return key as string;
      },
    },
    'idempotencyKey',
  );
};

/** Whether `value` was made by {@link createIdempotencyKeys}. */
export const isIdempotencyKeys = (value: unknown): value is IdempotencyKeys =>
  isFeature(value, 'idempotencyKey');

/** The `idempotencyKey` option, as the feature table's row puts it in the public options. */
export interface IdempotencyKeyOption {
  /**
   * A request with this header is retried whatever its method (same key on every attempt).
   * Default `'Idempotency-Key'`; `false` turns this off; `createIdempotencyKeys({ header?, generate? })`
   * also gives a request that has no key one of its own (see {@link IdempotencyKeyOptions}). A
   * factory, so that a program that never generates keys does not carry it.
   */
  readonly idempotencyKey?: string | false | IdempotencyKeys;
}
