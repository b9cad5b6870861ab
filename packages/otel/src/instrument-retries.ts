/**
 * `instrumentRetries`: turns jitterbug's `node:diagnostics_channel` events into OpenTelemetry span
 * attributes, span events and metrics, until the function it returns is called.
 */
import { fail } from '@jitterbug/core/adapter';
import type { AttemptStartMessage } from '@jitterbug/core/diagnostics';
import { context, type Meter, trace } from '@opentelemetry/api';
import { listenForAttemptSpans } from './attempt-span-hook.ts';
import { AttemptWindow } from './attempt-window.ts';
import { observeBudgets } from './budget-gauge.ts';
import { subscribeChannels } from './channel-subscriptions.ts';
import { ATTRIBUTES, SCOPE_NAME } from './names.ts';
import {
  type InstrumentRetriesOptions,
  type ResolvedInstrumentOptions,
  resolveInstrumentOptions,
} from './options.ts';
import { requestAttributes } from './request-attributes.ts';
import { createRetryMetrics } from './retry-metrics.ts';
import { RunStates } from './run-state.ts';
import { addGiveUpEvent, addRetryEvent } from './span-events.ts';
import { VERSION } from './version.ts';

/** The instrumentation running in the process, shared by every copy of this package. */
const RUNNING = Symbol.for('jitterbug.otel.instrumentation');

interface Running {
  readonly options: ResolvedInstrumentOptions;
  /** The calls whose function has not been called yet. */
  users: number;
  /** The budgets and policies a running call reports. */
  readonly observed: Set<object>;
  readonly meter: Meter;
  readonly stop: () => void;
}

/**
 * Starts the one instrumentation (without budgets: each call observes its own); returns its meter
 * and its stop.
 */
const start = ({ meterProvider, activeSpan }: ResolvedInstrumentOptions): Pick<Running, 'meter' | 'stop'> => {
  const meter = meterProvider.getMeter(SCOPE_NAME, VERSION);
  const metrics = createRetryMetrics(meter);
  const runs = new RunStates();
  const window = new AttemptWindow();

  const announce = ({ run, attempt, copy }: AttemptStartMessage): void => {
    const state = runs.of(run);
    const copyNumber = copy ?? 1;
    // An adapter may announce the same send twice before sending it: it is still one send.
    const repeated = state.lastAttempt === attempt && state.lastCopy === copyNumber;
    if (!repeated) {
      state.lastAttempt = attempt;
      state.lastCopy = copyNumber;
      if (copy !== undefined) state.copies++;
    }
    const resendCount = attempt - 1 + state.copies;
    if (!repeated && resendCount > 0) state.callerSpan?.setAttribute(ATTRIBUTES.resendCount, resendCount);
    window.open({ state, attempt, resendCount, copy });
  };

  const stopSubscriptions = subscribeChannels({
    runStart({ run, method, url, route }) {
      const span = activeSpan ? trace.getSpan(context.active()) : undefined;
      runs.begin(run, span?.isRecording() ? span : undefined, requestAttributes(method, url, route));
    },
    attemptStart: announce,
    attemptEnd({ run, error, errorCode }) {
      const state = runs.of(run);
      state.lastError = error;
      state.lastErrorCode = errorCode;
    },
    retry(message) {
      const state = runs.of(message.run);
      addRetryEvent(state, message);
      metrics.retry(state, message);
    },
    giveUp(message) {
      const state = runs.of(message.run);
      addGiveUpEvent(state, message);
      metrics.giveUp(state, message);
    },
    runEnd(message) {
      metrics.runEnd(runs.of(message.run), message);
    },
  });

  const stopListening = listenForAttemptSpans((span) => {
    const send = window.claim();
    if (!send) return;
    if (send.resendCount > 0) span.setAttribute(ATTRIBUTES.resendCount, send.resendCount);
    if (send.copy !== undefined) {
      span.setAttribute(ATTRIBUTES.hedgeCopy, send.copy);
    } else {
      send.state.attemptSpan = span;
      send.state.attemptSpanNumber = send.attempt;
    }
  });

  const stop = (): void => {
    stopSubscriptions();
    stopListening();
    window.close();
  };
  return { meter, stop };
};

/**
 * Starts reporting jitterbug's retries to OpenTelemetry, for every jitterbug adapter in the process
 * (they publish on `node:diagnostics_channel`; nothing is configured on the clients):
 *
 * - `http.request.resend_count` on the span of every resend (with `attemptSpanHook` as an HTTP
 *   client instrumentation's request hook, e.g. `@opentelemetry/instrumentation-undici`'s) and on
 *   the span active when the request began;
 * - span events `jitterbug.retry` and `jitterbug.give_up`;
 * - the metrics `jitterbug.retries`, `jitterbug.give_ups`, `jitterbug.request.attempts`,
 *   `jitterbug.request.wait_time` and `jitterbug.budget.tokens` (for the budgets named in `budgets`).
 *
 * Creates no spans of its own. Call it once, after setting up the SDK. A second call while one
 * runs (a library and the program, two modules) instruments nothing twice: with the same
 * `meterProvider` and `activeSpan` it shares the running instrumentation (its `budgets` added), and
 * the instrumentation stops once every call's function has been called; with others it throws,
 * since each retry would be counted twice:
 *
 * ```ts
 * const stop = instrumentRetries({ meterProvider });
 * // … on shutdown:
 * stop();
 * ```
 *
 * @returns a function that unsubscribes from every channel, detaches from the attempt-span hook and
 *   stops the budget gauge; afterwards nothing is recorded and no span is touched. Calling it again
 *   does nothing.
 * @throws TypeError naming the option when an option is invalid, or when an instrumentation with
 *   another `meterProvider` or `activeSpan` is running.
 */
export const instrumentRetries = (options?: InstrumentRetriesOptions): (() => void) => {
  const resolved = resolveInstrumentOptions(options);
  const registry = globalThis as { [RUNNING]?: Running };
  let running = registry[RUNNING];
  if (running) {
    for (const key of ['meterProvider', 'activeSpan'] as const) {
      if (resolved[key] !== running.options[key]) {
        fail(
          key,
          `the one of the instrumentRetries already running (${key} is set once)`,
          resolved[key],
          'instrumentRetriesTwice',
        );
      }
    }
  } else {
    running = { options: resolved, users: 0, observed: new Set(), ...start(resolved) };
    registry[RUNNING] = running;
  }
  const shared = running;
  shared.users++;
  // The budgets no call has named yet: each is reported once.
  const added = resolved.budgets.filter(([, source]) => !shared.observed.has(source));
  for (const [, source] of added) shared.observed.add(source);
  const stopGauge = observeBudgets(shared.meter, added);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    stopGauge();
    for (const [, source] of added) shared.observed.delete(source);
    if (--shared.users > 0) return;
    shared.stop();
    if (registry[RUNNING] === shared) delete registry[RUNNING];
  };
};
