/**
 * What a server advertises about its rate limit before it refuses anything: the IETF `RateLimit` and
 * `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers, the Structured Field form:
 * `RateLimit-Policy: "default";q=100;w=60`, `RateLimit: "default";r=50;t=30`), and the older
 * `X-RateLimit-Remaining` / `X-RateLimit-Reset` pair (GitHub, most APIs; also `RateLimit-Remaining` /
 * `RateLimit-Reset` of the draft's first versions and express-rate-limit).
 *
 * Parsed strictly: a structured field is parsed as RFC 9651 says, and a value that does not parse, or
 * whose items lack a required parameter or give a wrong type, is ignored as a whole (the draft: a
 * malformed field MUST be ignored). Every number comes out finite and non-negative: garbage never
 * becomes `NaN`, a negative or an infinite count.
 */
import { type HeaderGetter, parseRateLimitReset } from './retry-after.ts';

/** A bare item of a structured field, as far as these fields need one (a Decimal kept apart from an Integer). */
type Bare =
  | number
  | string
  | boolean
  | { readonly decimal: number }
  | { readonly token: string }
  | { readonly bytes: string };

/** A list member: an item or an inner list, with its parameters. */
interface Member {
  readonly value: Bare | readonly Bare[];
  readonly params: ReadonlyMap<string, Bare>;
}

// Sticky patterns, matched at the cursor.
const NUMBER = /-?(\d+)(?:\.(\d+))?/y;
const KEY = /[a-z*][a-z0-9_\-.*]*/y;
// RFC 9110 tchar, plus ":" and "/" after the first character.
const TOKEN = /[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/y;
const BYTES = /:[A-Za-z0-9+/=]*:/y;
const DISPLAY_ESCAPE = /%[0-9a-f]{2}/y;
const FAIL = Symbol('fail');

/** A cursor over one field value; every `read…` returns {@link FAIL} where the syntax is broken. */
class Reader {
  declare readonly text: string;
  declare at: number;
  constructor(text: string) {
    this.text = text;
    this.at = 0;
  }
  get done(): boolean {
    return this.at >= this.text.length;
  }
  peek(): string {
    return this.text.charAt(this.at);
  }
  skip(chars: string): void {
    while (!this.done && chars.includes(this.peek())) this.at++;
  }
  match(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.at;
    const found = pattern.exec(this.text) ?? undefined;
    if (found) this.at += found[0].length;
    return found;
  }

  /** An Integer (at most 15 digits) or a Decimal (at most 12 digits before the point, 3 after). */
  number(): number | { decimal: number } | typeof FAIL {
    const found = this.match(NUMBER);
    if (!found) return FAIL;
    const [text, whole, fraction] = found as unknown as [string, string, string | undefined];
    if (fraction === undefined) return whole.length > 15 ? FAIL : Number(text);
    return whole.length > 12 || fraction.length > 3 ? FAIL : { decimal: Number(text) };
  }

  /** A String: printable ASCII, with `\"` and `\\` the only escapes. */
  string(): string | typeof FAIL {
    let out = '';
    for (this.at++; !this.done; ) {
      const c = this.text.charAt(this.at++);
      if (c === '"') return out;
      if (c === '\\') {
        const escaped = this.text.charAt(this.at++);
        if (escaped !== '"' && escaped !== '\\') return FAIL;
        out += escaped;
      } else if (c < ' ' || c > '~') return FAIL;
      else out += c;
    }
    return FAIL;
  }

  /** A Display String (RFC 9651): printable ASCII and `%xx` escapes, kept as written (no field here reads one). */
  display(): string | typeof FAIL {
    const start = this.at;
    for (this.at += 2; !this.done; ) {
      const c = this.peek();
      if (c === '"') return this.text.slice(start + 2, this.at++);
      if (c === '%') {
        if (!this.match(DISPLAY_ESCAPE)) return FAIL;
      } else if (c < ' ' || c > '~') return FAIL;
      else this.at++;
    }
    return FAIL;
  }

  bare(): Bare | typeof FAIL {
    const c = this.peek();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    if (c === '"') return this.string();
    if (c === '?') {
      const flag = this.text.charAt(this.at + 1);
      this.at += 2;
      return flag === '1' ? true : flag === '0' ? false : FAIL;
    }
    if (c === '@') {
      // A Date (RFC 9651): an Integer of seconds.
      this.at++;
      const n = this.number();
      return typeof n === 'number' ? n : FAIL;
    }
    if (c === '%') return this.text.charAt(this.at + 1) === '"' ? this.display() : FAIL;
    const bytes = this.match(BYTES);
    if (bytes) return { bytes: bytes[0].slice(1, -1) };
    const token = this.match(TOKEN);
    return token ? { token: token[0] } : FAIL;
  }

  params(): Map<string, Bare> | typeof FAIL {
    const params = new Map<string, Bare>();
    while (this.peek() === ';') {
      this.at++;
      this.skip(' ');
      const key = this.match(KEY);
      if (!key) return FAIL;
      let value: Bare | typeof FAIL = true;
      if (this.peek() === '=') {
        this.at++;
        value = this.bare();
        if (value === FAIL) return FAIL;
      }
      // A key given twice keeps its last value.
      params.set(key[0], value);
    }
    return params;
  }

  member(): Member | typeof FAIL {
    let value: Bare | Bare[] | typeof FAIL;
    if (this.peek() === '(') {
      this.at++;
      const items: Bare[] = [];
      for (;;) {
        this.skip(' ');
        if (this.peek() === ')') break;
        const item = this.bare();
        // An inner list's items may carry parameters, which these fields never read.
        if (item === FAIL || this.params() === FAIL) return FAIL;
        items.push(item);
        if (this.peek() !== ' ' && this.peek() !== ')') return FAIL;
      }
      this.at++;
      value = items;
    } else value = this.bare();
    if (value === FAIL) return FAIL;
    const params = this.params();
    return params === FAIL ? FAIL : { value, params };
  }
}

/**
 * Parses a structured field List (RFC 9651 §4.2.1), as one field line or several joined with commas.
 * `undefined` when the value does not parse.
 */
export const parseList = (value: string): Member[] | undefined => {
  const r = new Reader(value.replace(/^[ \t]+|[ \t]+$/g, ''));
  const members: Member[] = [];
  while (!r.done) {
    const member = r.member();
    if (member === FAIL) return undefined;
    members.push(member);
    r.skip(' \t');
    if (r.done) break;
    if (r.peek() !== ',') return undefined;
    r.at++;
    r.skip(' \t');
    // A trailing comma is an error.
    if (r.done) return undefined;
  }
  return members;
};

/** A quota policy of `RateLimit-Policy`: `quota` requests per `windowSeconds`. */
export interface QuotaPolicy {
  /** The policy's name (the member's token or string). */
  readonly name: string;
  /** `q`: the requests allowed per window. */
  readonly quota: number;
  /** `w`: the window, in seconds, when given. */
  readonly windowSeconds: number | undefined;
}

/** A service limit of `RateLimit`: `remaining` requests within the next `resetSeconds`. */
export interface ServiceLimit {
  /** The policy it belongs to (the member's token or string). */
  readonly name: string;
  /** `r`: the requests left. */
  readonly remaining: number;
  /** `t`: the seconds until the quota is reset, when given. */
  readonly resetSeconds: number | undefined;
}

const nameOf = (value: Member['value']): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'object' && 'token' in value ? value.token : undefined;

/** An Integer of at least `min` (a Decimal, even `1.0`, is not one). */
const integer = (value: Bare | undefined, min: number): number | undefined =>
  typeof value === 'number' && value >= min ? value : undefined;

/**
 * Reads the members of a field with `read`; `undefined` for the whole field when it does not parse or
 * one member is malformed (`read` returning `undefined`). `read` returns `null` for a member to leave
 * out (a policy counted in other units than requests).
 */
const readField = <T>(
  value: string | null | undefined,
  read: (name: string, params: ReadonlyMap<string, Bare>) => T | null | undefined,
): T[] | undefined => {
  if (value == null) return undefined;
  const members = parseList(value);
  if (!members || members.length === 0) return undefined;
  const out: T[] = [];
  for (const { value: item, params } of members) {
    const name = nameOf(item);
    const read1 = name === undefined ? undefined : read(name, params);
    if (read1 === undefined) return undefined;
    if (read1 !== null) out.push(read1);
  }
  return out;
};

/**
 * Parses `RateLimit-Policy`: each item a policy name with `q` (an Integer >= 0, required), `w` (an
 * Integer > 0, seconds) and `qu` (the quota's unit: policies in other units than `"requests"` are
 * left out). `undefined` when the field is absent or malformed.
 */
export const parseRateLimitPolicy = (value: string | null | undefined): QuotaPolicy[] | undefined =>
  readField(value, (name, params): QuotaPolicy | null | undefined => {
    const quota = integer(params.get('q'), 0);
    const w = params.get('w');
    const windowSeconds = integer(w, 1);
    const unit = params.get('qu');
    if (quota === undefined || (w !== undefined && windowSeconds === undefined)) return undefined;
    if (unit !== undefined && typeof unit !== 'string') return undefined;
    return unit !== undefined && unit !== 'requests' ? null : { name, quota, windowSeconds };
  });

/**
 * Parses `RateLimit`: each item a policy name with `r` (an Integer >= 0, required) and `t` (an
 * Integer >= 0, seconds). `undefined` when the field is absent or malformed.
 */
export const parseRateLimit = (value: string | null | undefined): ServiceLimit[] | undefined =>
  readField(value, (name, params): ServiceLimit | undefined => {
    const remaining = integer(params.get('r'), 0);
    const t = params.get('t');
    const resetSeconds = integer(t, 0);
    if (remaining === undefined || (t !== undefined && resetSeconds === undefined)) return undefined;
    return { name, remaining, resetSeconds };
  });

const COUNT = /^\d{1,15}$/;

/** What a response advertises, as the pacer uses it. */
export interface AdvertisedQuota {
  /**
   * The pace it allows now, in requests per ms: each policy's remaining quota spread over the time
   * left in its window (`r / t`), no faster than a policy's long-run `q / w` (the draft's advice
   * against a large `r / t`); 0 when a quota is spent.
   */
  readonly rate: number;
  /** How long `rate` holds, in ms: until the binding window resets; `Infinity` for a `q / w` alone. */
  readonly forMs: number;
  /** The slowest policy's `q / w`, in requests per ms, for after a window resets; `Infinity` if none. */
  readonly policyRate: number;
}

/**
 * The quota a response advertises: from `RateLimit` and `RateLimit-Policy` when they are valid, else
 * from `X-RateLimit-Remaining` with `X-RateLimit-Reset` (or the draft's first, unprefixed pair); the
 * most constraining of its policies. `undefined` when it advertises nothing usable (a limit without
 * a window says nothing about time).
 */
export const advertisedQuota = (headers: HeaderGetter, nowMs: number): AdvertisedQuota | undefined => {
  const policies = parseRateLimitPolicy(headers('ratelimit-policy')) ?? [];
  let policyRate = Infinity;
  for (const p of policies) {
    if (p.windowSeconds !== undefined) policyRate = Math.min(policyRate, p.quota / (p.windowSeconds * 1000));
  }
  let limits: { remaining: number; resetMs: number | undefined }[] | undefined = parseRateLimit(
    headers('ratelimit'),
  )?.map((l) => ({
    remaining: l.remaining,
    resetMs: l.resetSeconds === undefined ? undefined : l.resetSeconds * 1000,
  }));
  if (!limits) {
    const remaining = (headers('x-ratelimit-remaining') ?? headers('ratelimit-remaining'))?.trim();
    const reset =
      remaining === undefined
        ? undefined
        : parseRateLimitReset(headers('x-ratelimit-reset') ?? headers('ratelimit-reset'), nowMs);
    if (remaining !== undefined && COUNT.test(remaining) && reset !== undefined) {
      limits = [{ remaining: Number(remaining), resetMs: reset }];
    }
  }
  let rate = policyRate;
  let forMs = Infinity;
  let spentMs = 0;
  for (const { remaining, resetMs } of limits ?? []) {
    // A window that ends now says nothing either.
    if (resetMs === undefined || resetMs <= 0) continue;
    if (remaining === 0) spentMs = Math.max(spentMs, resetMs);
    else if (remaining / resetMs < rate) {
      rate = remaining / resetMs;
      forMs = resetMs;
    }
  }
  if (spentMs > 0) return { rate: 0, forMs: spentMs, policyRate };
  return rate === Infinity ? undefined : { rate, forMs, policyRate };
};
