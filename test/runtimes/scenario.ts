/**
 * A runtime scenario, in one place: the routes the Node side scripts on the server before the
 * runtime starts the scenario, the code that runs *inside* the runtime (it sends requests with the
 * client under test and reports what they ended with), and the checks the Node side makes
 * afterwards, on that report and on what the server saw. Scenario files are bundled into browser
 * pages and workers, and run as they are by Node, Bun and Deno: they import only types from Node's
 * side (the server's steps, vitest's `expect`), never Node's modules.
 */
import type { ExpectStatic } from 'vitest';
import type { Script, SeenPreflight, SeenRequest, Step } from '../support/scripted-server.ts';
import type { CallResult, ClientSetup, RuntimeClient, Sleep } from './in-runtime/client.ts';
import type { ClientName, RuntimeName, ScenarioResult } from './protocol.ts';

/** What a scenario gets inside the runtime. */
export interface RunContext {
  readonly runtime: RuntimeName;
  readonly client: ClientName;
  /** The absolute URL of `path` under the scenario's prefix. */
  url(path: string): string;
  /** `path` under the scenario's prefix, as the server sees it (for route patterns). */
  path(path: string): string;
  /**
   * The client under test with jitterbug attached. Options default to the suite's: `random: () =>
   * 0`, backoff full jitter 1–5 ms (so 0 ms waits), the recording `sleep` below; an `onRetry` of
   * the scenario's is called after the suite's own recording one.
   */
  connect(setup?: Partial<ClientSetup>): RuntimeClient;
  /** Records each wait, then resolves at once (on the next macrotask). */
  readonly sleep: Sleep;
  /** Records each wait, then holds until its signal aborts (rejects with the signal's reason). */
  readonly holdingSleep: Sleep;
  /** Resolves once the injected sleep was asked to wait (`n` waits in all). */
  waited(n?: number): Promise<void>;
  /** The runtime's own `fetch`, without jitterbug: for control requests to the scripted server. */
  readonly rawFetch: typeof fetch;
}

/** What a scenario returns from inside the runtime; the runner adds the recorded waits and retries. */
export interface RunOutput {
  readonly calls: readonly CallResult[];
  readonly notes?: ScenarioResult['notes'];
}

/** What a scenario's checks get on the Node side. */
export interface CheckContext {
  readonly expect: ExpectStatic;
  readonly runtime: RuntimeName;
  readonly client: ClientName;
  readonly result: ScenarioResult;
  /** `path` under the scenario's prefix, as the server sees it. */
  path(path: string): string;
  /** Requests the server saw for `path` under the scenario's prefix (preflights not included). */
  seen(path: string): readonly SeenRequest[];
  /** CORS preflights the server answered for `path` under the prefix. */
  preflights(path: string): readonly SeenPreflight[];
  /** A finding to print under the runtime matrix (what this runtime or client does differently). */
  report(finding: string): void;
}

/** Where a scenario cannot apply, and why (printed in the matrix; such a pair is not a test). */
export interface NotApplicable {
  readonly runtimes?: readonly RuntimeName[];
  readonly clients?: readonly ClientName[];
  readonly why: string;
}

export interface Scenario {
  /** Unique; also the last part of the scenario's path prefix. */
  readonly id: string;
  readonly title: string;
  /** The clients it is written for (default: every client a runtime has). */
  readonly clients?: readonly ClientName[];
  readonly notApplicable?: readonly NotApplicable[];
  /** Steps per path under the prefix; called once per run, so a script may keep its own state. */
  routes(): Readonly<Record<string, readonly Step[] | Script>>;
  run(ctx: RunContext): Promise<RunOutput>;
  check(ctx: CheckContext): void;
}

/** Why `scenario` does not apply to this runtime and client, or `undefined` when it does. */
export const notApplicable = (
  scenario: Scenario,
  runtime: RuntimeName,
  client: ClientName,
): string | undefined => {
  if (scenario.clients && !scenario.clients.includes(client)) return undefined;
  return scenario.notApplicable?.find(
    (n) => (!n.runtimes || n.runtimes.includes(runtime)) && (!n.clients || n.clients.includes(client)),
  )?.why;
};

/** Whether `scenario` is a test for this runtime and client. */
export const applies = (scenario: Scenario, runtime: RuntimeName, client: ClientName): boolean =>
  (!scenario.clients || scenario.clients.includes(client)) &&
  notApplicable(scenario, runtime, client) === undefined;
