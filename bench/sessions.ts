/**
 * The client comparisons of `make bench`: for every client, round robin, {@link MIN_SESSIONS}
 * success-path sessions and as many retry-path sessions (`interleave.ts`); then, while the time
 * budget lasts, further passes: each gives one more session to every client whose A/A spread is
 * still wider than its goal ({@link SPREAD_GOAL}: the 50-byte success path, which carries the 2 %
 * target; the retry path, whose target is only "no dearer than the peer", to a coarser goal),
 * the widest first, as long as the next session fits.
 *
 * Passes rather than always the widest: what limits a client's spread is mostly the one set of
 * processes in ten that runs dearer for its whole life, and only more sessions average it out;
 * sending every spare session to the noisiest client (tried) left the others with two each.
 */
import { aaSpread, type ClientSessions } from './analyse.ts';
import type { ClientName } from './clients/types.ts';
import { runSession, type Session } from './interleave.ts';
import { BUDGET_S, MIN_SESSIONS, retryPlan, successPlan } from './plan.ts';

/** A/A spreads that resolve the targets with room to spare. */
export const SPREAD_GOAL = { success: 0.005, retry: 0.02 } as const;
type Path = keyof typeof SPREAD_GOAL;

interface Sessions {
  readonly client: ClientName;
  readonly success: Session[];
  readonly retry: Session[];
}

const spreadOf = (cs: ClientSessions, path: Path): number =>
  aaSpread(cs, path === 'success' ? '50B' : 'retry');

export const runSessions = async (
  clients: readonly ClientName[],
  origin: string,
  log: (line: string) => void,
): Promise<ClientSessions[]> => {
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;
  const all: Sessions[] = clients.map((client) => ({ client, success: [], retry: [] }));
  const runOne = async (cs: Sessions, path: Path): Promise<void> => {
    const plan = path === 'success' ? successPlan(cs.client) : retryPlan(cs.client);
    const session = await runSession(cs.client, origin, plan);
    cs[path].push(session);
    const failed = Object.entries(session.errors).map(([slot, e]) => `${slot}: ${e.split('\n')[0]}`);
    const spread = spreadOf(cs, path);
    log(
      `${cs.client}: ${path} session ${cs[path].length} took ${session.seconds.toFixed(0)} s; ` +
        `A/A spread ${Number.isFinite(spread) ? `±${(spread * 100).toFixed(1)} %` : '—'}` +
        (failed.length ? `; not run: ${failed.join('; ')}` : ''),
    );
  };
  for (let round = 0; round < MIN_SESSIONS; round++) {
    for (const cs of all) {
      await runOne(cs, 'success');
      await runOne(cs, 'retry');
    }
  }
  // A session takes about as long as the client's last one of its kind.
  const fits = (cs: Sessions, path: Path): boolean => elapsed() + (cs[path].at(-1)?.seconds ?? 0) <= BUDGET_S;
  // Only where jitterbug and an A/A pair ran: more sessions do not help a variant that fails.
  const measurable = (cs: Sessions, path: Path): boolean =>
    Number.isFinite(spreadOf(cs, path)) && cs[path].some((s) => s.blocks.some((b) => b.slot === 'jitterbug'));
  for (let ran = true; ran; ) {
    ran = false;
    const pass = all
      .flatMap((cs) => (['success', 'retry'] as const).map((path) => ({ cs, path })))
      .filter(({ cs, path }) => measurable(cs, path))
      .map((w) => ({ ...w, need: spreadOf(w.cs, w.path) / SPREAD_GOAL[w.path] }))
      .filter((w) => w.need > 1)
      .sort((a, b) => b.need - a.need);
    for (const { cs, path } of pass) {
      if (!fits(cs, path)) continue;
      await runOne(cs, path);
      ran = true;
    }
  }
  log(`client sessions: ${elapsed().toFixed(0)} s of a ${BUDGET_S.toFixed(0)} s budget`);
  return all;
};
