/**
 * A retry policy and the run of one request under it. The policy is shared (by every request, and
 * by several clients if you like: its retry budget is theirs together); a run holds one request's
 * attempt count, backoff state and clock, and turns outcomes into decisions and events.
 */
import { type BackoffState, initialBackoffState } from './backoff.ts';
import type { BodyKind } from './body.ts';
import { type Decision, decide, decideByStatus, type StopDecision } from './decide.ts';
import { describeValue } from './describe-value.ts';
import {
  POLICY_KEYS,
  type ResolvedOptions,
  type RetryOptions,
  type RetrySummary,
  ROUTE_KEYS,
  resolveOptions,
  type StopReason,
} from './options.ts';
import type { HeaderGetter } from './retry-after.ts';
import { compileRouteMatch, type RouteMatcher } from './routes.ts';

/** A request as an adapter describes it to the policy. */
export interface RetryRequest {
  readonly method: string;
  /** Absolute URL (adapters resolve base URLs first). */
  readonly url: string | URL;
  /** Request headers, for the idempotency key. */
  readonly headers?: HeaderGetter;
  /** Default `'none'`. */
  readonly body?: BodyKind;
}

/** How an attempt ended, as an adapter reports it. */
export type AttemptResult =
  | { readonly status: number; readonly headers?: HeaderGetter }
  | { readonly error: unknown; readonly aborted?: boolean };

const NO_HEADERS: HeaderGetter = () => undefined;

/**
 * One request's retries. Created by {@link RetryPolicy.begin}.
 *
 * Its state is in TypeScript-private fields assigned in the constructor, not in `#private` fields
 * and initialisers: every request makes a run, in a client whose caches are cold for this code, and
 * `#private` fields measured about 0.6 µs more per request there (`bench/profiling.md`).
 */
export class RetryRun {
  /** The options in force for this request (after route rules). */
  declare readonly options: ResolvedOptions;
  declare readonly method: string;
  declare readonly url: string;
  /** Attempts reported so far. */
  declare attempts: number;
  /** Sum of waits so far, in ms. */
  declare totalDelayMs: number;
  /** Set once the request is finished. */
  declare summary: RetrySummary | undefined;
  /** The body as the decision sees it; an adapter that buffered a stream marks it `'replayable'`. */
  declare body: BodyKind;
  declare private readonly headers: HeaderGetter;
  declare private readonly startMs: number;
  declare private backoffState: BackoffState;

  constructor(options: ResolvedOptions, method: string, url: string, headers: HeaderGetter, body: BodyKind) {
    this.options = options;
    this.method = method;
    this.url = url;
    this.attempts = 0;
    this.totalDelayMs = 0;
    this.summary = undefined;
    this.body = body;
    this.headers = headers;
    this.startMs = options.now();
    this.backoffState = initialBackoffState;
    options.budget?.deposit();
  }

  /** Time since the run began, by the policy's clock. */
  elapsedMs(): number {
    return Math.max(0, this.options.now() - this.startMs);
  }

  /**
   * The decision for a response whose status settles the request by itself (a success, or a status
   * that is never retried, when there is no `shouldRetry` hook to ask): the attempt is counted, the
   * run finishes and the decision is returned, as {@link RetryRun.next} would. `undefined`, with
   * nothing counted, when the response needs {@link RetryRun.next} and its headers. Lets an adapter
   * skip building a header reader for nearly every response.
   */
  settle(status: number): StopDecision | undefined {
    const settled = decideByStatus(status, this.options);
    if (settled === undefined) return undefined;
    this.attempts++;
    this.finish(settled.reason, status, undefined, status < 400);
    return settled;
  }

  /**
   * Reports how an attempt ended and returns what to do. On `retry: true` the adapter discards the
   * response, waits with {@link RetryRun.wait} and sends again; on `retry: false` it hands the
   * response or error to the caller unchanged (the run is then finished and `summary` is set).
   * Throws what a user hook (`shouldRetry`, `onRetry`, …) throws.
   */
  next(result: AttemptResult): Decision {
    const hasStatus = 'status' in result;
    if (hasStatus) {
      const settled = this.settle(result.status);
      if (settled) return settled;
    }
    this.attempts++;
    const o = this.options;
    const nowMs = o.now();
    const budget = o.budget;
    let decision = decide(
      {
        method: this.method,
        url: this.url,
        requestHeaders: this.headers,
        bodyReplayable: this.body !== 'stream',
        attempt: this.attempts,
        elapsedMs: Math.max(0, nowMs - this.startMs),
        nowMs,
        backoffState: this.backoffState,
        budgetTokens: budget ? budget.tokens : Number.POSITIVE_INFINITY,
        status: hasStatus ? result.status : undefined,
        responseHeaders: hasStatus ? (result.headers ?? NO_HEADERS) : undefined,
        error: hasStatus ? undefined : result.error,
        aborted: hasStatus ? false : result.aborted === true,
      },
      o,
    );
    // The decision only read the budget; the withdrawal is where concurrent runs are serialised.
    if (decision.retry && budget && !budget.tryWithdraw()) {
      decision = { retry: false, reason: 'budget-exhausted', gaveUp: true };
    }
    const detail = hasStatus ? { status: result.status } : { error: result.error };
    const route = o.route === undefined ? {} : { route: o.route };
    if (decision.retry) {
      this.backoffState = decision.nextBackoffState;
      o.onRetry?.({
        method: this.method,
        url: this.url,
        attempt: this.attempts,
        delayMs: decision.delayMs,
        delaySource: decision.delaySource,
        ...detail,
        ...route,
        ...(budget ? { budgetTokens: budget.tokens } : {}),
      });
      return decision;
    }
    if (decision.gaveUp && o.onGiveUp) {
      o.onGiveUp({
        method: this.method,
        url: this.url,
        attempt: this.attempts,
        reason: decision.reason,
        ...detail,
        ...route,
        ...(decision.refusedDelayMs === undefined ? {} : { refusedDelayMs: decision.refusedDelayMs }),
      });
    }
    if (hasStatus) this.finish(decision.reason, result.status, undefined, result.status < 400);
    else this.finish(decision.reason, undefined, result.error, false);
    return decision;
  }

  /**
   * Waits `ms` with the policy's sleep. When `signal` aborts, rejects with its reason at once and
   * finishes the run as `aborted`; also when an injected sleep ignored the signal and resolved after
   * it fired, so that no adapter starts an attempt the caller has already given up on.
   */
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.options.sleep(ms, signal);
      if (signal?.aborted) throw signal.reason;
    } catch (error) {
      this.finish('aborted', undefined, error, false);
      throw error;
    }
    this.totalDelayMs += ms;
  }

  /** Finishes the run as aborted when the caller's signal fired outside `next` and `wait`. */
  abort(reason: unknown): void {
    this.finish('aborted', undefined, reason, false);
  }

  private finish(reason: StopReason, status: number | undefined, error: unknown, success: boolean): void {
    if (this.summary) return;
    const o = this.options;
    const elapsedMs = Math.max(0, o.now() - this.startMs);
    const outcome = success ? 'success' : 'failure';
    // One literal per shape, nothing added afterwards and no spreads: a field added to a literal
    // costs a second allocation (a literal has no spare room) on every request's success path.
    const { method, url, attempts, totalDelayMs } = this;
    const route = o.route;
    let summary: RetrySummary;
    if (status !== undefined) {
      summary =
        route === undefined
          ? { method, url, attempts, totalDelayMs, elapsedMs, outcome, reason, status }
          : { method, url, attempts, totalDelayMs, elapsedMs, outcome, reason, status, route };
    } else {
      summary =
        route === undefined
          ? { method, url, attempts, totalDelayMs, elapsedMs, outcome, reason, error }
          : { method, url, attempts, totalDelayMs, elapsedMs, outcome, reason, error, route };
    }
    this.summary = summary;
    o.onFinish?.(summary);
  }
}

interface CompiledRoute {
  readonly matches: RouteMatcher;
  readonly options: ResolvedOptions;
}

/** A retry policy. Create with {@link createRetryPolicy}; share it to share its retry budget. */
export interface RetryPolicy {
  /** The base options (no route applied). */
  readonly options: ResolvedOptions;
  /** The options in force for a request: the first matching route's, else the base. */
  resolve(method: string, url: string | URL): ResolvedOptions;
  /**
   * Whether any request may buffer a stream body (`bufferStreamBytes` above 0 in the base options
   * or a route), for adapters that set up a body-reading step only when it can be needed.
   */
  readonly buffersStreams: boolean;
  /** Starts one request's run. */
  begin(request: RetryRequest): RetryRun;
}

const POLICY_BRAND = Symbol.for('jitterbug.policy');

const routeLabel = (match: unknown, index: number): string =>
  typeof match === 'string' ? match : `routes[${index}]`;

/**
 * The method in upper case, the common ones without `toUpperCase` (a call into V8's runtime, whose
 * code runs cold on a client's success path).
 */
const upperMethod = (method: string): string => {
  switch (method) {
    case 'GET':
    case 'get':
      return 'GET';
    case 'HEAD':
    case 'head':
      return 'HEAD';
    case 'POST':
    case 'post':
      return 'POST';
    case 'PUT':
    case 'put':
      return 'PUT';
    case 'DELETE':
    case 'delete':
      return 'DELETE';
    case 'PATCH':
    case 'patch':
      return 'PATCH';
    case 'OPTIONS':
    case 'options':
      return 'OPTIONS';
    default:
      return method.toUpperCase();
  }
};

const toUrl = (url: string | URL): URL => {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    return new URL(url, 'http://localhost');
  }
};

/**
 * Creates a retry policy. See {@link RetryOptions} for every option and its default.
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const createRetryPolicy = (options: RetryOptions = {}): RetryPolicy => {
  const base = resolveOptions(options as Record<string, unknown>, undefined, '', POLICY_KEYS);
  const rawRoutes: unknown = options.routes === undefined ? [] : options.routes;
  if (!Array.isArray(rawRoutes)) {
    throw new TypeError(
      `jitterbug: option "routes" must be an array of rules, got ${describeValue(rawRoutes)}`,
    );
  }
  const routes: CompiledRoute[] = rawRoutes.map((rule: unknown, i) => {
    const path = `routes[${i}]`;
    if (typeof rule !== 'object' || rule === null)
      throw new TypeError(`jitterbug: option "${path}" must be an object`);
    const r = rule as Record<string, unknown>;
    if (r.match === undefined) throw new TypeError(`jitterbug: option "${path}.match" is required`);
    if (r.name !== undefined && typeof r.name !== 'string') {
      throw new TypeError(`jitterbug: option "${path}.name" must be a string`);
    }
    const matches = compileRouteMatch(r.match as never, `${path}.match`);
    const resolved = resolveOptions(r, base, path, ROUTE_KEYS);
    return {
      matches,
      options: { ...resolved, route: (r.name as string | undefined) ?? routeLabel(r.match, i) },
    };
  });

  const resolveUpper = (upper: string, url: string | URL): ResolvedOptions => {
    const parsed = toUrl(url);
    for (const route of routes) if (route.matches(upper, parsed)) return route.options;
    return base;
  };
  const resolve = (method: string, url: string | URL): ResolvedOptions =>
    routes.length === 0 ? base : resolveUpper(upperMethod(method), url);

  const policy: RetryPolicy & { [POLICY_BRAND]: true } = {
    [POLICY_BRAND]: true,
    options: base,
    resolve,
    buffersStreams: [base, ...routes.map((r) => r.options)].some((o) => o.bufferStreamBytes > 0),
    begin(request) {
      const method = upperMethod(request.method);
      const url = request.url;
      return new RetryRun(
        routes.length === 0 ? base : resolveUpper(method, url),
        method,
        typeof url === 'string' ? url : url.href,
        request.headers ?? NO_HEADERS,
        request.body ?? 'none',
      );
    },
  };
  return Object.freeze(policy);
};

/** Whether a value is a policy made by {@link createRetryPolicy}. */
export const isRetryPolicy = (value: unknown): value is RetryPolicy =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[POLICY_BRAND] === true;

/** What every adapter accepts: a policy (to share it) or options for a new one. */
export type RetryPolicyOrOptions = RetryPolicy | RetryOptions;

/** The policy itself, or a new one from options. For adapters. */
export const toRetryPolicy = (optionsOrPolicy: RetryPolicyOrOptions | undefined): RetryPolicy =>
  isRetryPolicy(optionsOrPolicy) ? optionsOrPolicy : createRetryPolicy(optionsOrPolicy ?? {});
