/**
 * Issue 36's done-criterion, run as many rounds as asked (default 10), and printed as a table:
 * against HAProxy's `timeout http-keep-alive 300ms` (5 waves of 40, over HTTP/1.1 through every
 * client and over HTTP/2 through those that speak it) and against Caddy reloaded twice with 40
 * requests in flight, every GET and every keyed POST must end 200, no POST without a key reach
 * the backend twice, and no request fail `budget-exhausted`. `make test` runs one round of each
 * (`test/haproxy/keep-alive.test.ts`, `test/caddy/reload.test.ts`); this runs them again and again.
 *
 *   node --conditions=@jitterbug/source test/keep-alive-rounds.ts [rounds]
 *
 * Exits 1 when a round missed the criterion.
 */
import { runKeepAlive } from './haproxy/keep-alive.ts';
import { type RunningCaddy, startCaddy } from './support/caddy/caddy.ts';
import { countOfKind, type MixedOutcome } from './support/mixed-load.ts';
import { CLIENTS, type ClientName, tlsTransport } from './support/node-clients.ts';
import { startProxyStack } from './support/proxy-stack.ts';
import { runReloadUnderLoad } from './support/reload-under-load.ts';
import type { Sent } from './support/sent.ts';

const rounds = Number(process.argv[2] ?? 10);
const H2_SPEAKERS = CLIENTS.filter((c) => c !== 'axios');

interface Row {
  readonly scenario: string;
  readonly client: ClientName;
  runs: number;
  /** Runs that met the criterion. */
  met: number;
  gets: number;
  keyed: number;
  /** GETs and keyed POSTs that did not end 200. */
  lost: number;
  unkeyedLost: number;
  unkeyedTwice: number;
  budgetExhausted: number;
  staleRetries: number;
  /** Runs that failed to run (a server that did not start): counted as not met. */
  broken: number;
}

const rows = new Map<string, Row>();
const row = (scenario: string, client: ClientName): Row => {
  const key = `${scenario} ${client}`;
  let found = rows.get(key);
  if (!found) {
    found = {
      scenario,
      client,
      runs: 0,
      met: 0,
      gets: 0,
      keyed: 0,
      lost: 0,
      unkeyedLost: 0,
      unkeyedTwice: 0,
      budgetExhausted: 0,
      staleRetries: 0,
      broken: 0,
    };
    rows.set(key, found);
  }
  return found;
};

const record = (
  scenario: string,
  client: ClientName,
  outcome: MixedOutcome,
  total: number,
  staleRetries: number,
): void => {
  const r = row(scenario, client);
  const ok = (kind: 'GET' | 'keyed POST') => outcome.endings[kind]['200'] ?? 0;
  const lost = countOfKind(total, 'GET') - ok('GET') + countOfKind(total, 'keyed POST') - ok('keyed POST');
  r.runs++;
  r.gets += ok('GET');
  r.keyed += ok('keyed POST');
  r.lost += lost;
  r.unkeyedLost += countOfKind(total, 'POST') - (outcome.endings.POST['200'] ?? 0);
  r.unkeyedTwice += outcome.unkeyedTwice.length;
  r.budgetExhausted += outcome.budgetExhausted;
  r.staleRetries += staleRetries;
  if (lost === 0 && outcome.unkeyedTwice.length === 0 && outcome.budgetExhausted === 0) r.met++;
  // What the misses ended with, for the record.
  else console.error(`${scenario}, ${client}: ${JSON.stringify(outcome)}`);
};

/** Retries made as `stale-connection`, by the summaries of the requests that had one. */
const staleOf = (
  sent: readonly { result: { info?: { retries: readonly string[] } | undefined } }[],
): number =>
  sent.reduce((n, s) => n + (s.result.info?.retries.filter((r) => r === 'stale-connection').length ?? 0), 0);

/** Runs `run` and records it, or records it as broken (with its error on stderr) when it throws. */
const attempt = async (
  scenario: string,
  client: ClientName,
  run: () => Promise<{ outcome: MixedOutcome; sent: readonly Sent[] }>,
): Promise<void> => {
  try {
    const { outcome, sent } = await run();
    record(scenario, client, outcome, sent.length, staleOf(sent));
  } catch (error) {
    const r = row(scenario, client);
    r.runs++;
    r.broken++;
    console.error(`${scenario}, ${client}: ${String(error)}`);
  }
};

for (let round = 1; round <= rounds; round++) {
  for (const client of CLIENTS)
    await attempt('HAProxy keep-alive, HTTP/1.1', client, () => runKeepAlive(client, 'tls'));
  for (const client of H2_SPEAKERS)
    await attempt('HAProxy keep-alive, HTTP/2', client, () => runKeepAlive(client, 'h2'));
  for (const client of CLIENTS) {
    const transport = tlsTransport(client) === 'h2' ? 'h2' : 'tls';
    await attempt(`Caddy reload, ${transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, client, async () => {
      const stack = await startProxyStack<RunningCaddy>((backend) => startCaddy({}, backend));
      return runReloadUnderLoad(stack, client, transport).finally(() => stack.stop());
    });
  }
  console.error(`round ${round}/${rounds} done`);
}

const header =
  '| scenario | client | runs met | GETs 200 | keyed POSTs 200 | GETs + keyed lost | unkeyed POSTs lost | unkeyed POSTs twice | budget-exhausted | stale-connection retries | runs broken |';
console.log(header);
console.log(`|${' --- |'.repeat(11)}`);
for (const r of rows.values()) {
  console.log(
    `| ${r.scenario} | ${r.client} | ${r.met}/${r.runs} | ${r.gets} | ${r.keyed} | ${r.lost} | ${r.unkeyedLost} | ${r.unkeyedTwice} | ${r.budgetExhausted} | ${r.staleRetries} | ${r.broken} |`,
  );
}
process.exitCode = [...rows.values()].every((r) => r.met === r.runs) ? 0 : 1;
