/**
 * `make demo`: jitterbug in one run. The core's delays per strategy; then every example against the
 * local flaky server, each request printed as a timeline (attempt, status or error, chosen delay
 * and why, outcome); then Brooker's experiment and a retry storm from the simulator, as charts;
 * then the browser example in headless Chromium, its page's timeline printed here.
 */
import { resolve } from 'node:path';
import { DEMO_OUT_DIR, runDemo } from '@jitterbug/simulator';
import { main as axiosInterceptor } from './axios-interceptor.ts';
import { main as browserExample } from './browser/run.ts';
import { printCoreDelays } from './core-delays.ts';
import { main as fetchDispatcher } from './fetch-dispatcher.ts';
import { main as fetchRetry } from './fetch-retry.ts';
import { startFlakyServer } from './flaky-server.ts';
import { main as kyHooks } from './ky-hooks.ts';
import { main as otelTraces } from './otel-traces.ts';
import { main as perRoutePolicies } from './per-route-policies.ts';
import { main as sharedPolicy } from './shared-policy.ts';
import type { Example } from './standalone.ts';

const log = (line: string): void => console.log(line);
const heading = (text: string): void => console.log(`\n${text}\n${'-'.repeat(text.length)}`);

console.log('jitterbug demo\n==============');
heading('1. Backoff strategies (@jitterbug/core)');
printCoreDelays(log);

const examples: [string, Example][] = [
  ['examples/fetch-retry.ts — fetch in any runtime (and the origin-wide pacer)', fetchRetry],
  ['examples/axios-interceptor.ts — axios', axiosInterceptor],
  ['examples/ky-hooks.ts — ky', kyHooks],
  ['examples/fetch-dispatcher.ts — Node fetch and undici', fetchDispatcher],
  ['examples/per-route-policies.ts — per-route rules', perRoutePolicies],
  ['examples/shared-policy.ts — one budget for three clients', sharedPolicy],
  ['examples/otel-traces.ts — OpenTelemetry spans and metrics', otelTraces],
];
heading('2. Requests against a local flaky server (timelines)');
for (const [title, example] of examples) {
  const server = await startFlakyServer();
  console.log(`\n${title}  [server ${server.url}]`);
  try {
    await example(server, log);
  } finally {
    await server.close();
  }
}

heading('3. The simulator (@jitterbug/simulator): why jitter, why a budget, and the way back');
const outDir = resolve(DEMO_OUT_DIR);
const result = await runDemo(outDir);
console.log(result.table);
console.log(
  [
    '',
    'In the storm, the *throttle policies and the pacer (budget+retry-after+pacer) send less than one',
    'attempt per request during the outage, where the budget alone lets every first attempt through:',
    'they refuse requests locally. They stop refusing as soon as one of the requests they still let',
    'through finds the server well again (a fifth of them for the throttle, one every 500 ms for the',
    'pacer): their recovery column is the time from the outage’s end until then. The cooldown the pacer',
    'replaced held the outage’s requests instead and released them into load shedding: it never',
    'recovered (packages/simulator/README.md).',
  ].join('\n'),
);
console.log(`\nCharts written to ${outDir}:`);
for (const file of result.files) console.log(`  ${file}`);
console.log(
  '\nMore: jitterbug-sim occ --help, jitterbug-sim storm --help, jitterbug-sim tail --help (packages/simulator/README.md).',
);

heading('4. In a browser: examples/browser/ in headless Chromium');
const browserServer = await startFlakyServer();
console.log(`examples/browser/ — withRetry(fetch) in a page  [server ${browserServer.url}]`);
try {
  await browserExample(browserServer, log);
} catch (error) {
  // Loud, and the demo fails: a browser that cannot start is never passed over in silence.
  console.error(
    `\nThe browser example could not run: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
} finally {
  await browserServer.close();
}
