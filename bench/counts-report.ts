/**
 * The section of RESULTS.md written from the instruction counts (`counts.ts`): the tables, the
 * verdicts on the issue's targets, and what in them is exact and what is not.
 */
import type { ClientName } from './clients/types.ts';
import type { CountedProcess, CountResults, Figure } from './counts.ts';
import type { CountBlock } from './counts-child.ts';
import { COUNTED_CLIENTS, LOOPBACK_CONCURRENCY } from './counts-plan.ts';
import { table } from './table.ts';
import { countVerdict, OVERHEAD_TARGET } from './targets.ts';

const int = (x: number): string =>
  Number.isFinite(x) ? Math.round(x).toLocaleString('en').replace('-', '−') : '—';
const signed = (x: number): string => (Number.isFinite(x) && x > 0 ? `+${int(x)}` : int(x));
const pct = (x: number, digits = 1): string =>
  Number.isFinite(x) ? `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x * 100).toFixed(digits)} %` : '—';

/**
 * A difference of two figures: the difference of their least windows, and an interval that takes
 * every window of both and, beyond them, the history A/A (`history`, a share of each figure: how far
 * another history of the same process moved it).
 */
export interface Difference {
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
}

const difference = (a: Figure | undefined, b: Figure | undefined, history: number): Difference | undefined =>
  a && b
    ? {
        value: a.perRequest - b.perRequest,
        lo: a.perRequest * (1 - history) - b.highest * (1 + history),
        hi: a.highest * (1 + history) - b.perRequest * (1 - history),
      }
    : undefined;

const figure = (f: Figure | undefined): string =>
  f ? (f.highest > f.perRequest ? `${int(f.perRequest)} (…${int(f.highest)})` : int(f.perRequest)) : '—';

const showDifference = (d: Difference | undefined, of?: Figure): string =>
  d
    ? `${signed(d.value)}${of ? ` (${pct(d.value / of.perRequest)})` : ''}; ${signed(d.lo)} … ${signed(d.hi)}`
    : '—';

const blockOf = (p: CountedProcess | undefined, block: CountBlock): Figure | undefined => p?.blocks[block];

/** The figures of one client, by variant. */
const variantsOf = (r: CountResults, client: ClientName) => {
  const of = (kind: 'raw' | 'jitterbug' | 'peer') =>
    r.memory.find((m) => m.client === client && m.kind === kind);
  return {
    raw: of('raw'),
    jitterbug: of('jitterbug'),
    peer: of('peer'),
    loopback: r.loopback.find((l) => l.client === client),
  };
};

/** How far another history of undici-request's raw process moved its 50-byte figure (a share). */
export const historyShare = (r: CountResults): number => {
  const first = variantsOf(r, 'undici-request').raw?.blocks['50B'];
  const other = r.otherHistory.blocks['50B'];
  return first && other ? Math.abs(other.perRequest / first.perRequest - 1) : 0;
};

/** The overhead against a loopback request: the difference over the loopback figure, with both ranges. */
export interface Overhead {
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
}

// The denominator is the least loopback window too (the larger overhead); the interval takes every
// window against every end of the difference.
const overheadOf = (d: Difference | undefined, loopback: Figure | undefined): Overhead | undefined => {
  if (!d || !loopback) return undefined;
  const ends = [d.lo, d.hi].flatMap((x) => [x / loopback.perRequest, x / loopback.highest]);
  return { value: d.value / loopback.perRequest, lo: Math.min(...ends), hi: Math.max(...ends) };
};

const showOverhead = (o: Overhead | undefined): string =>
  o ? `${pct(o.value, 2)} (${pct(o.lo, 2)} … ${pct(o.hi, 2)})` : '—';

const points = (x: number): string => `${pct(x, 2)} of a loopback request`;

/** Verdict on "jitterbug ≤ raw + 2 %" of a loopback request. */
export const overheadVerdict = (o: Overhead | undefined): string =>
  o ? countVerdict(o.value, o.lo, o.hi, OVERHEAD_TARGET - 1, points) : 'not run';

/** Verdict on "jitterbug ≤ the peer", in instructions (and as a share of `scale`). */
export const peerVerdict = (d: Difference | undefined, scale: Figure | undefined, of: string): string =>
  d
    ? countVerdict(
        d.value,
        d.lo,
        d.hi,
        0,
        (x) => `${int(x)} instructions${scale ? ` (${pct(x / scale.perRequest, 2)} of ${of})` : ''}`,
      )
    : 'not run';

/** Everything the interpretation needs of one client, at one response size. */
export const clientCounts = (r: CountResults, client: ClientName, block: CountBlock = '50B') => {
  const v = variantsOf(r, client);
  const history = historyShare(r);
  const raw = blockOf(v.raw, block);
  const jitterbug = blockOf(v.jitterbug, block);
  const peer = blockOf(v.peer, block);
  const loopback = blockOf(v.loopback, block);
  const overJb = difference(jitterbug, raw, history);
  const overhead = overheadOf(overJb, loopback);
  const vsPeer = difference(jitterbug, peer, history);
  const retry = difference(blockOf(v.jitterbug, 'retry'), blockOf(v.peer, 'retry'), history);
  return {
    raw,
    jitterbug,
    peer,
    loopback,
    overJb,
    overPeer: difference(peer, raw, history),
    vsPeer,
    overhead,
    overheadOfPeer: overheadOf(difference(peer, raw, history), loopback),
    overheadVerdict: overheadVerdict(overhead),
    peerVerdict: peerVerdict(vsPeer, loopback, 'a loopback request'),
    retry,
    retryVerdict: peerVerdict(retry, blockOf(v.peer, 'retry'), "the peer's retried request"),
  };
};

const successTable = (r: CountResults): string =>
  table(
    [
      'client',
      'raw',
      'jitterbug',
      'peer',
      'jitterbug − raw',
      'peer − raw',
      'jitterbug − peer',
      'raw over loopback',
      'jitterbug − raw, of a loopback request',
      '≤ 2 %',
      '≤ peer',
    ],
    COUNTED_CLIENTS.map((client) => {
      const c = clientCounts(r, client);
      return [
        client,
        figure(c.raw),
        figure(c.jitterbug),
        figure(c.peer),
        showDifference(c.overJb, c.raw),
        showDifference(c.overPeer, c.raw),
        showDifference(c.vsPeer),
        c.loopback
          ? `${int(Math.min(...c.loopback.windows))} … ${int(Math.max(...c.loopback.windows))}`
          : '—',
        showOverhead(c.overhead),
        c.overheadVerdict,
        c.peerVerdict,
      ];
    }),
  );

const sizesTable = (r: CountResults): string =>
  table(
    [
      'client',
      'response',
      'raw',
      'jitterbug − raw',
      'peer − raw',
      'jitterbug − peer',
      'raw over loopback',
      'jitterbug − raw, of a loopback request',
      'peer − raw, of a loopback request',
    ],
    COUNTED_CLIENTS.flatMap((client) =>
      (['50B', '4KB', '64KB'] as const).map((block) => {
        const c = clientCounts(r, client, block);
        return [
          client,
          block,
          figure(c.raw),
          showDifference(c.overJb),
          showDifference(c.overPeer),
          showDifference(c.vsPeer),
          figure(c.loopback),
          showOverhead(c.overhead),
          showOverhead(c.overheadOfPeer),
        ];
      }),
    ),
  );

const retryTable = (r: CountResults): string =>
  table(
    ['client', 'jitterbug per retried request', 'peer', 'jitterbug − peer', '≤ peer'],
    COUNTED_CLIENTS.map((client) => {
      const v = variantsOf(r, client);
      const c = clientCounts(r, client);
      return [
        client,
        figure(blockOf(v.jitterbug, 'retry')),
        figure(blockOf(v.peer, 'retry')),
        showDifference(c.retry, blockOf(v.peer, 'retry')),
        c.retryVerdict,
      ];
    }),
  );

const gcTable = (r: CountResults): string =>
  table(
    ['client', 'raw', 'jitterbug', 'peer', 'jitterbug − raw'],
    COUNTED_CLIENTS.map((client) => {
      const c = clientCounts(r, client);
      return [
        client,
        int(c.raw?.gcPerRequest ?? Number.NaN),
        int(c.jitterbug?.gcPerRequest ?? Number.NaN),
        int(c.peer?.gcPerRequest ?? Number.NaN),
        signed((c.jitterbug?.gcPerRequest ?? Number.NaN) - (c.raw?.gcPerRequest ?? Number.NaN)),
      ];
    }),
  );

/** How far the 50-byte figure of undici-request's raw process moved when run again. */
const repeatText = (r: CountResults): string => {
  const first = variantsOf(r, 'undici-request').raw?.blocks['50B'];
  const again = r.repeat.blocks['50B'];
  const other = r.otherHistory.blocks['50B'];
  if (!first || !again || !other) return 'The A/A did not run (see "Not run" below).';
  const windows = (f: Figure): string => f.windows.map(int).join(', ');
  return (
    `**A/A.** undici-request's raw process run again, unchanged: its 50-byte windows counted ` +
    `${windows(first)} instructions per request the first time and ${windows(again)} the second ` +
    `(figure ${pct(again.perRequest / first.perRequest - 1, 4)}): the same process counts the same. ` +
    `Run with a 10 % longer warm-up, the same code after another history: ${windows(other)} ` +
    `(figure ${pct(other.perRequest / first.perRequest - 1, 2)}); every interval above is widened by that share.`
  );
};

const bookkeepingText = (r: CountResults): string => {
  const f = r.bookkeeping.blocks['50B'];
  if (!f) return `The bookkeeping loop did not run${r.bookkeeping.error ? `: ${r.bookkeeping.error}` : ''}.`;
  const shares = COUNTED_CLIENTS.map((client) => {
    const d = clientCounts(r, client).overJb;
    return d && d.value > 0 ? `${client} ${pct(f.perRequest / d.value, 0)}` : `${client} —`;
  });
  return (
    `**Where jitterbug's instructions go.** The core's bookkeeping of a successful request alone ` +
    `(\`policy.begin\`, \`run.settle(200)\`, \`setRetryInfo\`, in a loop: \`counts-bookkeeping.ts\`) ` +
    `counts ${figure(f)} instructions per request, outside GC and the compilers. As a share of ` +
    `jitterbug − raw at 50 bytes: ${shares.join(', ')}. The rest is each adapter's own work (its ` +
    `handler or wrapper, the request's description for the policy) and what it makes the client do.`
  );
};

const errorsText = (r: CountResults): string => {
  const failed = [
    ...r.memory.filter((m) => m.error).map((m) => `${m.client} ${m.kind} (in memory): ${m.error}`),
    ...r.loopback.filter((l) => l.error).map((l) => `${l.client} raw (loopback): ${l.error}`),
    ...(r.repeat.error ? [`the A/A repeat: ${r.repeat.error}`] : []),
    ...(r.otherHistory.error ? [`the longer warm-up: ${r.otherHistory.error}`] : []),
  ];
  return failed.length ? `\n**Not run:**\n\n${failed.map((f) => `- ${f}`).join('\n')}` : '';
};

export const COUNTS_METHOD = `Instructions counted by valgrind's callgrind, per request, in one Node process per client and variant (\`bench/counts.ts\`). Every client runs as in the sessions (\`bench/clients/\`: the same options, the body read as JSON), one request at a time, through an in-memory transport in place of the network (\`bench/memory-*.ts\`): a dispatcher in place of undici's \`Agent\`, a \`fetch\` returning a \`Response\` for withRetry, fetch-retry and ky, an adapter in place of axios' \`'http'\` (which \`attachRetry\` wraps as it wraps the real one). They answer with the loopback server's status, headers and body, cut as the socket cut it, on the next turn of the event loop. Node runs with \`--predictable --single-threaded --no-incremental-marking\` and the sessions' flags. After a warm-up of each response size, a figure is the instructions of a window of requests between two calls that make callgrind write its counts, divided by the window's length, **outside V8's garbage collector and compilers** (their call-graph cost is taken out: a window holds a scavenge or a compile or not; GC is shown per request below). Each size has two or three windows; what disturbs one (V8 re-optimising a function, what follows a collection) only adds to it, so a figure is its least window, and "(…n)" is its dearest.

- **Exact:** a count, for a given process: run again, the same process counts the same (first A/A below).
- **Not exact:** which window (a figure's range), and the process's history: V8 optimises each process after everything it has run, so the same code in another process counts differently (second A/A below: another warm-up length). Each interval ("lo … hi") takes every window of both figures and widens each by that second A/A. It cannot take in a rarer, larger move: in trials, a process now and then kept a dearer optimisation of Node's own code for its whole life (raw undici \`fetch()\` counted 18 % more in every window when one V8 flag was changed: \`process.nextTick\`'s object literal built by the runtime; raw ky's 4 KB figure 17 % more after a change of warm-up length). A verdict near its target is only as good as that.
- **The denominator** of the 2 % target is the raw client's request over real loopback (the bench's server in its own process, ${LOOPBACK_CONCURRENCY} requests in flight as in the sessions), counted the same way; the overhead divides by its least window and its interval by every window. Its count follows the wall clock (which responses are ready when the client polls), and it is **user-space instructions only**: valgrind does not see the kernel's share of a socket's work, so the overhead of a request is overstated, not understated.
- Instructions are not time: cache misses and branch mispredictions are not in them, and the loopback sections' CPU times are the measure of those.
- The in-memory retry path has no socket: a peer that leaves a retried response's body unread (fetch-retry) pays nothing for it here, where over a socket undici has to deal with the unread body of a connection it reuses.`;

/** The section: method, tables, A/A, attribution, time taken. */
export const countsSection = (r: CountResults): string =>
  [
    COUNTS_METHOD,
    `\n**Success path, 50-byte response** (instructions per request; differences with their interval, "jitterbug − raw" also in % of the raw in-memory figure; "of a loopback request" against the loopback denominator, with its interval):\n`,
    successTable(r),
    `\n**By response size** (in memory; the loopback denominator of the same size):\n`,
    sizesTable(r),
    `\n**Retry path** (503, then 200, zero delay; instructions per retried request, in memory):\n`,
    retryTable(r),
    `\n**GC per request** (50 bytes; not exact: what the windows' collections cost, over their requests):\n`,
    gcTable(r),
    '',
    repeatText(r),
    '',
    bookkeepingText(r),
    '',
    `valgrind: ${r.valgrind}; the counts took ${r.seconds.toFixed(0)} s (${[...r.memory, ...r.loopback].length + 3} processes, two at a time; valgrind runs Node about 50 times slower).`,
    errorsText(r),
  ]
    .join('\n')
    .trimEnd();
