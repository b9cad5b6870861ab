/**
 * The fleet's circuit breaker, per origin. Each process keeps its own breaker (failure counts stay
 * in memory, as Powertools' do) and tells the store only of its changes: it broke, it closed. The
 * fleet's circuit opens when a quorum of instances broke within a window, not when one did (a
 * shared flag would let one unlucky process stop the fleet: Polly's proposed quorum breaker). After
 * the break one instance probes per half-open period, elected by a conditional write of its id: the
 * first to ask is the prober until its period ends, every other is told to wait. The id is per
 * process and per breaker (Powertools' #8320: an id per process let 8 threads probe at once); only
 * the prober's answer closes or reopens the circuit.
 *
 * Fleet states: closed (`openUntil` 0), open (before `openUntil`), half-open (after it, until the
 * prober settles). Every duration is passed per call and every time is the store's.
 *
 * State `[openUntil, proberId, probeUntil, n, id₁, brokeAt₁, …, idₙ, brokeAtₙ]`, at most
 * {@link BREAKER_MAX_INSTANCES} instances (the oldest report goes first).
 */
import type { SharedStore, StoreOperation, StoreResult } from './port.ts';
import { runOperation } from './run-operation.ts';

/** Instances remembered per breaker. */
export const BREAKER_MAX_INSTANCES = 64;

/**
 * A new breaker's id: a whole number below 2^48, random, so that two breakers (of one process or of
 * two) never share one. Exact as text in both bodies (it is below 2^53).
 */
export const newInstanceId = (random: () => number = Math.random): number => Math.floor(random() * 2 ** 48);

/**
 * The fleet's circuit is closed, as a breaker operation's result codes it: requests go to the
 * origin (`openUntil` is 0).
 */
export const FLEET_CLOSED = 0;
/**
 * The fleet's circuit is open, as a breaker operation's result codes it: a quorum of instances broke,
 * and no request goes to the origin until the break ends (the result's `msLeft` says when).
 */
export const FLEET_OPEN = 1;
/**
 * The fleet's circuit is half-open, as a breaker operation's result codes it: the break is over and
 * one elected instance probes the origin; the others wait for its answer.
 */
export const FLEET_HALF_OPEN = 2;

/** A breaker state, or `undefined` when the numbers are not one. */
const readState = (state: readonly number[] | undefined): readonly number[] | undefined => {
  if (state === undefined || state.length < 4) return undefined;
  const n = state[3]!;
  return n >= 0 && Math.floor(n) === n && state.length === 4 + 2 * n ? state : undefined;
};

const phase = (openUntil: number, now: number): number =>
  openUntil === 0 ? FLEET_CLOSED : now < openUntil ? FLEET_OPEN : FLEET_HALF_OPEN;

const keptFor = (keepMs: number, openUntil: number, now: number): number =>
  keepMs + Math.max(0, openUntil - now);

/** The Lua twin of `readState` and `phase`, in each step's body. */
const LUA_STATE = `
  local function read_state(s)
    if not s or #s < 4 then return nil end
    local n = s[4]
    if n < 0 or math.floor(n) ~= n or #s ~= 4 + 2 * n then return nil end
    return s
  end
  local function phase(open_until)
    if open_until == 0 then return ${FLEET_CLOSED} end
    if now < open_until then return ${FLEET_OPEN} end
    return ${FLEET_HALF_OPEN}
  end
  local function kept_for(keep, open_until) return keep + math.max(0, open_until - now) end`;

/**
 * `report`: arguments `[instanceId, broken (1/0), windowMs, quorum, breakMs, keepMs]`: the instance
 * broke (or closed again); instances that broke within `windowMs` count, and `quorum` of them open a
 * closed circuit for `breakMs`. Result `[state, msLeft, count]`: the fleet's state, how long it stays
 * open (0 unless open), and the instances that broke within the window.
 */
export const BREAKER_REPORT: StoreOperation = {
  name: 'breaker.report',
  state: 'breaker@1',
  results: 3,
  apply(state, [id = 0, broken = 0, windowMs = 0, quorum = 1, breakMs = 0, keepMs = 0], now) {
    const s = readState(state);
    let openUntil = s ? s[0]! : 0;
    const ids: number[] = [];
    const times: number[] = [];
    for (let i = 4; s && i < s.length; i += 2) {
      if (s[i] !== id && s[i + 1]! > now - windowMs) {
        ids.push(s[i]!);
        times.push(s[i + 1]!);
      }
    }
    if (broken === 1) {
      ids.push(id);
      times.push(now);
    }
    while (ids.length > BREAKER_MAX_INSTANCES) {
      ids.shift();
      times.shift();
    }
    if (openUntil === 0 && broken === 1 && ids.length >= quorum) openUntil = now + breakMs;
    const next = [openUntil, s ? s[1]! : 0, s ? s[2]! : 0, ids.length];
    for (let i = 0; i < ids.length; i++) next.push(ids[i]!, times[i]!);
    const p = phase(openUntil, now);
    return {
      state: next,
      ttlMs: keptFor(keepMs, openUntil, now),
      result: [p, p === FLEET_OPEN ? openUntil - now : 0, ids.length],
    };
  },
  lua: `${LUA_STATE}
  local id, broken, window, quorum, break_ms, keep = args[1], args[2], args[3], args[4], args[5], args[6]
  local s = read_state(state)
  local open_until, prober, probe_until = 0, 0, 0
  if s then open_until, prober, probe_until = s[1], s[2], s[3] end
  local ids, times = {}, {}
  if s then
    for i = 5, #s, 2 do
      if s[i] ~= id and s[i + 1] > now - window then
        ids[#ids + 1] = s[i]
        times[#times + 1] = s[i + 1]
      end
    end
  end
  if broken == 1 then
    ids[#ids + 1] = id
    times[#times + 1] = now
  end
  while #ids > ${BREAKER_MAX_INSTANCES} do
    table.remove(ids, 1)
    table.remove(times, 1)
  end
  if open_until == 0 and broken == 1 and #ids >= quorum then open_until = now + break_ms end
  local new = { open_until, prober, probe_until, #ids }
  for i = 1, #ids do
    new[#new + 1] = ids[i]
    new[#new + 1] = times[i]
  end
  local p = phase(open_until)
  local left = 0
  if p == ${FLEET_OPEN} then left = open_until - now end
  return new, kept_for(keep, open_until), { p, left, #ids }`,
};

/**
 * `probe`: arguments `[proberId, probeMs, keepMs]`: asks to be the one instance that probes the
 * half-open circuit for the next `probeMs`. Result `[granted (1/0), state, msLeft]`: granted to the
 * first to ask in a period (and again to the same prober); otherwise how long until the circuit
 * turns half-open (open) or the current prober's period ends (half-open). A closed circuit grants
 * nothing and needs no probe.
 */
export const BREAKER_PROBE: StoreOperation = {
  name: 'breaker.probe',
  state: 'breaker@1',
  results: 3,
  apply(state, [id = 0, probeMs = 0, keepMs = 0], now) {
    const s = readState(state);
    const openUntil = s ? s[0]! : 0;
    const p = phase(openUntil, now);
    if (!s || p === FLEET_CLOSED) return { ttlMs: 0, result: [0, FLEET_CLOSED, 0] };
    if (p === FLEET_OPEN) return { ttlMs: 0, result: [0, p, openUntil - now] };
    if (s[2]! > now && s[1] !== id) return { ttlMs: 0, result: [0, p, s[2]! - now] };
    const next = [openUntil, id, now + probeMs, ...s.slice(3)];
    return { state: next, ttlMs: keptFor(keepMs + probeMs, openUntil, now), result: [1, p, probeMs] };
  },
  lua: `${LUA_STATE}
  local id, probe_ms, keep = args[1], args[2], args[3]
  local s = read_state(state)
  local open_until = 0
  if s then open_until = s[1] end
  local p = phase(open_until)
  if not s or p == ${FLEET_CLOSED} then return nil, 0, { 0, ${FLEET_CLOSED}, 0 } end
  if p == ${FLEET_OPEN} then return nil, 0, { 0, p, open_until - now } end
  if s[3] > now and s[2] ~= id then return nil, 0, { 0, p, s[3] - now } end
  local new = { open_until, id, now + probe_ms }
  for i = 4, #s do new[i] = s[i] end
  return new, kept_for(keep + probe_ms, open_until), { 1, p, probe_ms }`,
};

/**
 * `settle`: arguments `[proberId, success (1/0), breakMs, keepMs]`: the prober's answer. A success
 * closes the circuit and forgets the instances that broke; a failure opens it again for `breakMs`.
 * Only the elected prober of a half-open circuit settles it. Result `[applied (1/0), state, msLeft]`.
 */
export const BREAKER_SETTLE: StoreOperation = {
  name: 'breaker.settle',
  state: 'breaker@1',
  results: 3,
  apply(state, [id = 0, success = 0, breakMs = 0, keepMs = 0], now) {
    const s = readState(state);
    const openUntil = s ? s[0]! : 0;
    const p = phase(openUntil, now);
    if (!s || p !== FLEET_HALF_OPEN || s[1] !== id)
      return { ttlMs: 0, result: [0, p, p === FLEET_OPEN ? openUntil - now : 0] };
    if (success === 1) return { state: [0, 0, 0, 0], ttlMs: keepMs, result: [1, FLEET_CLOSED, 0] };
    const reopened = now + breakMs;
    return {
      state: [reopened, 0, 0, ...s.slice(3)],
      ttlMs: keptFor(keepMs, reopened, now),
      result: [1, FLEET_OPEN, breakMs],
    };
  },
  lua: `${LUA_STATE}
  local id, success, break_ms, keep = args[1], args[2], args[3], args[4]
  local s = read_state(state)
  local open_until = 0
  if s then open_until = s[1] end
  local p = phase(open_until)
  if not s or p ~= ${FLEET_HALF_OPEN} or s[2] ~= id then
    local left = 0
    if p == ${FLEET_OPEN} then left = open_until - now end
    return nil, 0, { 0, p, left }
  end
  if success == 1 then return { 0, 0, 0, 0 }, keep, { 1, ${FLEET_CLOSED}, 0 } end
  local reopened = now + break_ms
  local new = { reopened, 0, 0 }
  for i = 4, #s do new[i] = s[i] end
  return new, kept_for(keep, reopened), { 1, ${FLEET_OPEN}, break_ms }`,
};

/** What the fleet's circuit is, as a breaker operation answers. */
export type FleetCircuit = 'closed' | 'open' | 'half-open';
const CIRCUITS: readonly FleetCircuit[] = ['closed', 'open', 'half-open'];
const circuitOf = (code: number): FleetCircuit => CIRCUITS[code] ?? 'closed';

/** The settings every breaker operation passes. */
export interface FleetBreakerSettings {
  /** This breaker's id: random per breaker object, so per process and per breaker. */
  readonly instanceId: number;
  /** Instances that broke within this many ms count towards the quorum. */
  readonly windowMs: number;
  /** Instances that must have broken for the fleet's circuit to open. */
  readonly quorum: number;
  /** How long the fleet's circuit stays open, in ms. */
  readonly breakMs: number;
  /** How long one prober has the half-open circuit, in ms. */
  readonly probeMs: number;
  /** How long the state is kept past what it still needs, in ms. */
  readonly keepMs: number;
}

/** The store's answer to {@link reportBreak}. */
export interface FleetReport {
  /** The fleet's circuit after the report: a break that reaches the quorum opens a closed one. */
  readonly circuit: FleetCircuit;
  /** How long the circuit stays open (0 unless open). */
  readonly openForMs: number;
  /** Instances that broke within the window. */
  readonly broken: number;
}

/** Tells the fleet that this instance broke (`broken`) or closed again. */
export const reportBreak = (
  store: SharedStore,
  scope: string,
  settings: FleetBreakerSettings,
  broken: boolean,
): Promise<StoreResult<FleetReport>> =>
  runOperation(
    store,
    BREAKER_REPORT,
    scope,
    [
      settings.instanceId,
      broken ? 1 : 0,
      settings.windowMs,
      settings.quorum,
      settings.breakMs,
      settings.keepMs,
    ],
    ([code = 0, openForMs = 0, count = 0]) => ({ circuit: circuitOf(code), openForMs, broken: count }),
  );

/** The store's answer to {@link claimProbe} and {@link settleProbe}. */
export interface FleetProbe {
  /** Granted the probe, or settled it. */
  readonly granted: boolean;
  /**
   * The fleet's circuit as the store saw it: for a claim, the state it was asked in (a probe is
   * granted only when it is `half-open`); for a settlement that applied, the state it leaves.
   */
  readonly circuit: FleetCircuit;
  /** Granted: the probe's period. Otherwise how long the circuit stays open, or the other prober's period lasts. */
  readonly forMs: number;
}

const probeOf = ([granted = 0, code = 0, forMs = 0]: readonly number[]): FleetProbe => ({
  granted: granted === 1,
  circuit: circuitOf(code),
  forMs,
});

/** Asks to be the fleet's prober of the half-open circuit. */
export const claimProbe = (
  store: SharedStore,
  scope: string,
  settings: FleetBreakerSettings,
): Promise<StoreResult<FleetProbe>> =>
  runOperation(
    store,
    BREAKER_PROBE,
    scope,
    [settings.instanceId, settings.probeMs, settings.keepMs],
    probeOf,
  );

/** The prober's answer: the origin answered (`success`) or failed again. */
export const settleProbe = (
  store: SharedStore,
  scope: string,
  settings: FleetBreakerSettings,
  success: boolean,
): Promise<StoreResult<FleetProbe>> =>
  runOperation(
    store,
    BREAKER_SETTLE,
    scope,
    [settings.instanceId, success ? 1 : 0, settings.breakMs, settings.keepMs],
    probeOf,
  );
