/**
 * `@jitterbug/simulator`: Marc Brooker's backoff-and-jitter contention experiment, a retry-storm
 * experiment and a hedging (long-tail) experiment, all running on `@jitterbug/core`'s own backoff
 * functions, retry policy, budgets, the pacer and hedging.
 * The `jitterbug-sim` command wraps these functions; tests and demos call them directly.
 *
 * @packageDocumentation
 */
export {
  type Chart,
  type ChartSize,
  fleetCharts,
  occCharts,
  renderSvg,
  stormCharts,
  tailCharts,
  writeCharts,
} from './charts.ts';
export { type CliIo, parseClients, parseLoads, runCli, UsageError } from './command.ts';
export { DEMO_OUT_DIR, type DemoResult, runDemo } from './demo.ts';
export {
  FLEET_DEFAULTS,
  FLEET_MODES,
  FLEET_SCENARIOS,
  type FleetMode,
  type FleetOptions,
  type FleetResult,
  type FleetRow,
  type FleetScenario,
  type FleetTimeline,
  fleetCsv,
  fleetJson,
  fleetTable,
  runFleet,
} from './fleet.ts';
export { EventHeap } from './heap.ts';
export { createLatency, createStandardNormal, DEFAULT_LATENCY, type LatencyModel } from './normal.ts';
export {
  DEFAULT_OCC_STRATEGIES,
  histogramBin,
  isInstant,
  isOccStrategy,
  OCC_DEFAULTS,
  OCC_LIMITS,
  OCC_STRATEGIES,
  type OccHistogram,
  type OccPoint,
  type OccRunOptions,
  type OccRunResult,
  type OccStrategyName,
  type OccSweepOptions,
  type OccSweepResult,
  occNeverSleeps,
  runOcc,
  simulateOcc,
} from './occ.ts';
export {
  formatTable,
  occCsv,
  occJson,
  occTable,
  stormCsv,
  stormJson,
  stormTable,
  tailCsv,
  tailJson,
  tailTable,
} from './output.ts';
export { createProgress, type Progress, type ProgressStream } from './progress.ts';
export { deriveSeed, randomSeed } from './seeds.ts';
export {
  createServiceTime,
  DEFAULT_SERVICE_TIME,
  meanServiceMs,
  type ServiceTimeModel,
  serviceTimeProblem,
} from './service-time.ts';
export { histogram, percentileOfSorted, type Summary, summarize } from './stats.ts';
export {
  createStormPolicy,
  DEFAULT_STORM_POLICIES,
  isStormPolicy,
  runStorm,
  STORM_DEFAULTS,
  STORM_LIMITS,
  STORM_POLICIES,
  STORM_POLICY_DESCRIPTIONS,
  type StormLimitProblem,
  type StormOptions,
  type StormPolicyName,
  type StormPolicyResult,
  type StormPolicySettings,
  type StormResult,
  type StormRunResult,
  type StormTimeline,
  simulateStorm,
  stormLimitProblem,
  stormPolicyThrottles,
} from './storm.ts';
export { createWarmThrottle } from './storm-throttle.ts';
export {
  runTail,
  simulateTail,
  type TailPoint,
  type TailResult,
  type TailRunResult,
  tailCapacityPerSec,
} from './tail.ts';
export {
  createTailPolicy,
  isTailVariant,
  isTailWindowFeed,
  type ResolvedTailOptions,
  resolveTail,
  TAIL_COPIES,
  TAIL_DEFAULTS,
  TAIL_LIMITS,
  TAIL_VARIANT_DESCRIPTIONS,
  TAIL_VARIANTS,
  TAIL_WINDOW_FEEDS,
  type TailLimitProblem,
  type TailOptions,
  type TailVariantName,
  type TailWindowFeed,
  tailLimitProblem,
} from './tail-options.ts';
