/** The method section of RESULTS.md: how the client comparisons were made, with this run's settings. */
import type { ClientSessions } from './analyse.ts';
import { SIZES } from './bodies.ts';
import {
  BLOCK_MS,
  BUDGET_S,
  CONCURRENCY,
  CYCLES,
  MIN_SESSIONS,
  retryPlan,
  SETTLE_CYCLES,
  successPlan,
} from './plan.ts';
import { SPREAD_GOAL } from './sessions.ts';
import { table } from './table.ts';

const blocksTable = (sessions: readonly ClientSessions[]): string =>
  table(
    ['client', ...SIZES.map((s) => `${s} block`), 'retry block', 'sessions run (success + retry)'],
    sessions.map((cs) => {
      const success = successPlan(cs.client);
      return [
        cs.client,
        ...SIZES.map((s) => String(success.blocks[s] ?? 0)),
        String(retryPlan(cs.client).blocks.retry ?? 0),
        `${cs.success.length} + ${cs.retry.length}`,
      ];
    }),
  );

export const methodText = (sessions: readonly ClientSessions[]): string =>
  `**Sessions of turns.** For each client a session starts six processes at once: the raw client, jitterbug and the peer, each twice (the twins are the A/A pairs). They warm up one at a time (2,500 requests of the 50-byte response, 1,000 of 4 KB, 400 of 64 KB, ${CONCURRENCY} in flight), then take turns: in each cycle every response size runs as one block in every process, in an order that rotates from cycle to cycle, while the other processes sleep. A block lasts about ${BLOCK_MS} ms of CPU. The first ${SETTLE_CYCLES} cycles are run and not kept (they cost up to half as much again for every variant, however long the warm-up); ${CYCLES} cycles are kept. The retry path has sessions of its own (jitterbug and the peer, twice each; a raw client does not retry): retried requests change a process's garbage collection enough to make its success path dearer.\n\n` +
  `**Why turns, not whole processes.** On this shared VM a client's CPU per request drifts by tens of per cent within minutes, and processes started side by side disturb each other; whole-process pairs resolved ±2 % at best and ±10 % in a busy hour (profiling notes). Blocks that run a fraction of a second apart, each alone on the client CPU with the server on its own, see the same drift.\n\n` +
  `**What is compared.** Each block's CPU (\`process.cpuUsage()\`, user + system, all threads) minus its garbage-collection pauses (\`PerformanceObserver\` \`gc\` entries), per request. Within a cycle one pair is set against another (each pair by the geometric mean of its two processes); the figure is the median of these per-cycle ratios over all cycles of all sessions, with a 95 % interval from a two-level bootstrap (sessions drawn first, then cycles within them; 2,000 draws, fixed seed), so that what differs from one set of processes to the next widens the interval. GC pauses are left out of the ratio and shown per request in section 1: in a process that sleeps between turns V8 runs major collections far more often than in one that never pauses (ky: about one per 1,000 requests against none in 6,000), and one 20–90 ms pause in a ${BLOCK_MS} ms block doubles that block.\n\n` +
  `**A/A spread and findings.** The A/A spread of a response size is how far the raw/raw, jitterbug/jitterbug or peer/peer interval reaches from zero, whichever reaches furthest. A difference is a finding (◆) only when it is larger than that spread; a target counts as met within the A/A spread when the ratio is above it by no more than the spread.\n\n` +
  `**Rounds by need.** Every client gets ${MIN_SESSIONS} success and ${MIN_SESSIONS} retry sessions, round robin; then, within a budget of ${BUDGET_S.toFixed(0)} s for all sessions, passes give one more session to every client whose A/A spread is still wider than its goal, the widest first (±${(SPREAD_GOAL.success * 100).toFixed(1)} % for the 50-byte success path, ±${(SPREAD_GOAL.retry * 100).toFixed(0)} % for the retry path). Requests per block and the sessions this run made:\n\n${blocksTable(sessions)}`;
