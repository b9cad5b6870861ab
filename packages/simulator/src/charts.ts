/**
 * SVG charts, rendered in Node by Apache ECharts' server-side SVG renderer (no browser, no DOM).
 * ECharts is imported lazily, so runs that write no chart never load it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LineSeriesOption } from 'echarts/charts';
import type {
  GridComponentOption,
  LegendComponentOption,
  MarkAreaComponentOption,
  MarkLineComponentOption,
  TitleComponentOption,
} from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import type { FleetResult } from './fleet.ts';
import type { OccSweepResult } from './occ.ts';
import { type StormResult, stormPolicyPaces, stormPolicyThrottles } from './storm.ts';
import type { TailPoint, TailResult } from './tail.ts';
import { TAIL_VARIANTS } from './tail-options.ts';

type ChartOption = ComposeOption<
  | LineSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TitleComponentOption
  | MarkAreaComponentOption
  | MarkLineComponentOption
>;

/** A chart: its file name and SVG text. */
export interface Chart {
  /** The file name to write it to (`occ-calls.svg`). */
  readonly file: string;
  /** The chart, as an SVG document. */
  readonly svg: string;
}

/** Chart size in pixels. */
export interface ChartSize {
  /** Default 900. */
  readonly width?: number;
  /** Default 520. */
  readonly height?: number;
}

let loaded: Promise<typeof import('echarts/core')> | undefined;
const loadEcharts = (): Promise<typeof import('echarts/core')> => {
  loaded ??= (async () => {
    const [core, charts, components, renderers] = await Promise.all([
      import('echarts/core'),
      import('echarts/charts'),
      import('echarts/components'),
      import('echarts/renderers'),
    ]);
    core.use([
      charts.LineChart,
      components.GridComponent,
      components.LegendComponent,
      components.TitleComponent,
      components.MarkAreaComponent,
      components.MarkLineComponent,
      renderers.SVGRenderer,
    ]);
    return core;
  })();
  return loaded;
};

/** Renders one ECharts option to an SVG string. */
export const renderSvg = async (option: ChartOption, width: number, height: number): Promise<string> => {
  const echarts = await loadEcharts();
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, backgroundColor: '#ffffff', ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
};

const FONT = { fontFamily: 'sans-serif' };
const title = (text: string, subtext: string): TitleComponentOption => ({
  text,
  subtext,
  left: 'center',
  textStyle: { ...FONT, fontSize: 16 },
  subtextStyle: FONT,
});
const legend = (): LegendComponentOption => ({ bottom: 0, itemGap: 18, textStyle: FONT });
const axisName = (name: string) => ({
  name,
  nameLocation: 'middle' as const,
  nameGap: 32,
  nameTextStyle: FONT,
});

/**
 * The blog's two charts (calls vs clients, time vs clients; one line per strategy, mean over runs)
 * and the per-strategy histogram of write arrivals for one client count.
 */
export const occCharts = async (result: OccSweepResult, size: ChartSize = {}): Promise<Chart[]> => {
  const width = size.width ?? 900;
  const height = size.height ?? 520;
  const sub = `${result.runs} runs per point · base ${result.baseMs} ms · cap ${result.capMs} ms · latency |N(${result.latency.meanMs}, ${result.latency.sdMs})| ms · seed ${result.seed}`;
  const line = (pick: (p: OccSweepResult['points'][number]) => number): LineSeriesOption[] =>
    result.strategies.map((strategy) => ({
      type: 'line',
      name: strategy,
      symbolSize: 5,
      data: result.points.filter((p) => p.strategy === strategy).map((p) => [p.clients, pick(p)]),
    }));
  const grid: GridComponentOption = { left: 80, right: 30, top: 70, bottom: 80 };
  const calls = await renderSvg(
    {
      title: title('Work: writes received by the server', sub),
      legend: legend(),
      grid,
      xAxis: { type: 'value', ...axisName('clients') },
      yAxis: { type: 'value', ...axisName('calls (mean)'), nameGap: 55 },
      series: line((p) => p.calls.mean),
    },
    width,
    height,
  );
  const time = await renderSvg(
    {
      title: title('Time until the last client has written (log scale)', sub),
      legend: legend(),
      grid,
      xAxis: { type: 'value', ...axisName('clients') },
      yAxis: { type: 'log', ...axisName('time, ms (mean)'), nameGap: 55 },
      series: line((p) => p.timeMs.mean),
    },
    width,
    height,
  );
  const charts: Chart[] = [
    { file: 'occ-calls.svg', svg: calls },
    { file: 'occ-time.svg', svg: time },
  ];
  if (result.histograms.length > 0) {
    const panel = 170;
    const top = 60;
    const h = result.histograms;
    const writes = await renderSvg(
      {
        title: [
          title(
            `Writes arriving at the server over time, ${h[0]!.clients} clients, one run each`,
            `writes per ${h[0]!.binMs} ms bin; each panel has its own time axis`,
          ),
          ...h.map(
            (hist, i): TitleComponentOption => ({
              text: `${hist.strategy}: ${hist.calls} writes, last client done at ${Math.round(hist.timeMs)} ms`,
              left: 70,
              top: top + 8 + i * panel,
              textStyle: { ...FONT, fontSize: 12, fontWeight: 'normal' },
            }),
          ),
        ],
        grid: h.map((_, i) => ({ left: 70, right: 30, top: top + 30 + i * panel, height: panel - 70 })),
        xAxis: h.map((_, i) => ({
          type: 'value',
          gridIndex: i,
          min: 0,
          axisLabel: { ...FONT, formatter: '{value} ms' },
        })),
        yAxis: h.map((_, i) => ({ type: 'value', gridIndex: i, minInterval: 1, axisLabel: FONT })),
        series: h.map((hist, i) => ({
          type: 'line',
          name: hist.strategy,
          xAxisIndex: i,
          yAxisIndex: i,
          // Each point is a bin's start and count: 'end' holds the count until the next bin starts
          // ('start' drew every bin at the next one's height); the last point closes the last bin.
          step: 'end',
          showSymbol: false,
          lineStyle: { width: 1 },
          areaStyle: { opacity: 0.35 },
          data: [
            ...hist.counts.map((count, bin) => [bin * hist.binMs, count]),
            [hist.counts.length * hist.binMs, 0],
          ],
        })),
      },
      width,
      top + 30 + h.length * panel,
    );
    charts.push({ file: 'occ-writes.svg', svg: writes });
  }
  return charts;
};

/** Fourteen distinct colours (ECharts' default palette has nine, and the storm has fourteen policies). */
const STORM_PALETTE = [
  '#5470c6',
  '#91cc75',
  '#fac858',
  '#ee6666',
  '#73c0de',
  '#3ba272',
  '#fc8452',
  '#9a60b4',
  '#ea7ccc',
  '#2f4554',
  '#8c564b',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
];

/**
 * Attempts per second (and served requests per second) over time, one line per policy; with a
 * throttle, the requests it refused locally per second.
 */
export const stormCharts = async (result: StormResult, size: ChartSize = {}): Promise<Chart[]> => {
  const width = size.width ?? 1000;
  const height = size.height ?? 560;
  const s = result.settings;
  const sub = `${s.ratePerSec} req/s offered · capacity ${s.capacityPerSec}/s · outage ${s.outageStartSec}–${s.outageEndSec} s · ${s.maxAttempts} attempts · base ${s.baseMs} ms · mean of ${s.runs} runs · seed ${result.seed}`;
  const outage: MarkAreaComponentOption = {
    silent: true,
    itemStyle: { color: 'rgba(220, 60, 60, 0.08)' },
    label: { ...FONT, color: '#a33', position: 'insideTop' },
    data: [[{ name: 'outage', xAxis: s.outageStartSec }, { xAxis: s.outageEndSec }]],
  };
  const capacity: MarkLineComponentOption = {
    silent: true,
    symbol: 'none',
    lineStyle: { type: 'dashed', color: '#555' },
    label: { formatter: 'capacity', position: 'insideEndTop', ...FONT },
    data: [{ yAxis: s.capacityPerSec }],
  };
  // Each policy keeps its colour in every chart, even in one that shows only some of them.
  const colourOf = (policy: string): string =>
    STORM_PALETTE[result.policies.findIndex((p) => p.policy === policy) % STORM_PALETTE.length]!;
  const chart = (
    heading: string,
    yName: string,
    pick: (p: StormResult['policies'][number]) => readonly number[],
    policies = result.policies,
    showCapacity = true,
  ) =>
    renderSvg(
      {
        title: title(heading, sub),
        legend: legend(),
        // A legend of more than about eight policies takes two lines.
        grid: { left: 80, right: 40, top: 70, bottom: policies.length > 8 ? 100 : 80 },
        xAxis: { type: 'value', min: 0, ...axisName('time, s') },
        yAxis: { type: 'value', ...axisName(yName), nameGap: 50 },
        series: policies.map((p, i) => ({
          type: 'line',
          name: p.policy,
          color: colourOf(p.policy),
          showSymbol: false,
          lineStyle: { width: 1.5 },
          data: pick(p).map((v, bin) => [(bin * p.timeline.binMs) / 1000, Math.round(v * 10) / 10]),
          ...(i === 0 ? { markArea: outage, ...(showCapacity ? { markLine: capacity } : {}) } : {}),
        })),
      },
      width,
      height,
    );
  const charts: Chart[] = [
    {
      file: 'storm-attempts.svg',
      svg: await chart(
        'Attempts per second arriving at the server',
        'attempts/s',
        (p) => p.timeline.attemptsPerSec,
      ),
    },
    {
      file: 'storm-served.svg',
      svg: await chart('Attempts served per second (goodput)', 'served/s', (p) => p.timeline.servedPerSec),
    },
  ];
  // Requests the adaptive throttle refused before sending: how long a client keeps refusing after
  // the server is well again is the throttle's cost, and only this chart shows it.
  const throttled = result.policies.filter((p) => stormPolicyThrottles(p.policy));
  if (throttled.some((p) => p.throttled > 0)) {
    charts.push({
      file: 'storm-throttled.svg',
      svg: await chart(
        `Requests refused locally by the adaptive throttle (K ${s.throttleK}, window ${s.throttleWindowSec} s)`,
        'refused/s',
        (p) => p.timeline.throttledPerSec,
        throttled,
        false,
      ),
    });
  }
  // The pacer beside the same policy without it: what reaches the server (top), and how many
  // requests wait in a hold (bottom: a level, where held attempts per second would count a request
  // again each time a new hold catches it).
  const pairs = result.policies
    .filter((p) => stormPolicyPaces(p.policy) && p.held > 0)
    .map((p) => ({ p, base: result.policies.find((b) => b.policy === p.policy.replace('+pacer', '')) }));
  if (pairs.length > 0) {
    const panel = (i: number) => ({ left: 80, right: 40, top: 80 + i * 280, height: 210 });
    const series = (policy: string, values: readonly number[], binMs: number, index: number) =>
      ({
        type: 'line',
        name: policy,
        color: colourOf(policy),
        showSymbol: false,
        lineStyle: { width: 1.5 },
        xAxisIndex: index,
        yAxisIndex: index,
        data: values.map((v, bin) => [(bin * binMs) / 1000, Math.round(v * 10) / 10]),
      }) satisfies LineSeriesOption;
    const top: LineSeriesOption[] = pairs.flatMap(({ p, base }) => [
      ...(base ? [series(base.policy, base.timeline.attemptsPerSec, base.timeline.binMs, 0)] : []),
      series(p.policy, p.timeline.attemptsPerSec, p.timeline.binMs, 0),
    ]);
    top[0] = { ...top[0]!, markArea: outage, markLine: capacity };
    const bottom = pairs.map(({ p }, i) => ({
      ...series(p.policy, p.timeline.waiting, p.timeline.binMs, 1),
      ...(i === 0 ? { markArea: outage } : {}),
    }));
    charts.push({
      file: 'storm-pacer.svg',
      svg: await renderSvg(
        {
          title: [
            title(
              'The origin-wide pacer: attempts reaching the server per second (top), requests held (bottom)',
              `${sub} · Retry-After ${s.retryAfterSec ?? 'off'} s in the outage, ${s.overloadRetryAfterSec ?? 'off'} s when shedding`,
            ),
          ],
          legend: legend(),
          grid: [panel(0), panel(1)],
          xAxis: [0, 1].map((i) => ({ type: 'value', gridIndex: i, min: 0, ...axisName('time, s') })),
          yAxis: [
            { type: 'value', gridIndex: 0, ...axisName('attempts/s'), nameGap: 50 },
            { type: 'value', gridIndex: 1, ...axisName('requests held'), nameGap: 50 },
          ],
          series: [...top, ...bottom],
        },
        width,
        700,
      ),
    });
  }
  return charts;
};

/**
 * The tail experiment: p50, p99 and p99.9 latency against offered load (log scale: a collapsed
 * variant's seconds would flatten the others' milliseconds), one line per variant, and the extra
 * load the hedges added, with the hedge budget's ratio dashed.
 */
export const tailCharts = async (result: TailResult, size: ChartSize = {}): Promise<Chart[]> => {
  const width = size.width ?? 900;
  const height = size.height ?? 520;
  const s = result.settings;
  const sv = s.service;
  const budget =
    s.hedgeBurst === undefined ? "the core's hedge budget" : `a hedge budget ${s.hedgeBurst} deep`;
  const sub =
    `${s.workers} workers · ${100 * sv.slowShare}% slow (${sv.slowMinMs}–${sv.slowMaxMs} ms), others ~${sv.fastMedianMs} ms · ` +
    `fixed delay ${s.delayMs} ms · ${budget} · ${s.runs} × ${s.requests} requests per point · seed ${result.seed}`;
  // Each variant keeps its colour whichever variants were run.
  const colourOf = (variant: string): string =>
    STORM_PALETTE[(TAIL_VARIANTS as readonly string[]).indexOf(variant) % STORM_PALETTE.length]!;
  const grid: GridComponentOption = { left: 80, right: 40, top: 70, bottom: 80 };
  const lines = (pick: (p: TailPoint) => number): LineSeriesOption[] =>
    s.variants.map((variant) => ({
      type: 'line',
      name: variant,
      color: colourOf(variant),
      symbolSize: 5,
      data: result.points.filter((p) => p.variant === variant).map((p) => [p.load, pick(p)]),
    }));
  const xAxis = { type: 'value' as const, ...axisName('offered load (share of capacity without hedging)') };
  const latency = (label: string, pick: (p: TailPoint) => number) =>
    renderSvg(
      {
        title: title(`${label} latency against load (log scale)`, sub),
        legend: legend(),
        grid,
        xAxis,
        yAxis: { type: 'log', ...axisName(`${label}, ms`), nameGap: 50 },
        series: lines(pick),
      },
      width,
      height,
    );
  const ratio: MarkLineComponentOption = {
    silent: true,
    symbol: 'none',
    lineStyle: { type: 'dashed', color: '#555' },
    label: { formatter: `hedge budget ratio (${100 * s.hedgeRatio}%)`, position: 'insideEndTop', ...FONT },
    data: [{ yAxis: 100 * s.hedgeRatio }],
  };
  const extraSeries = lines((p) => Math.round(1000 * p.extraLoad) / 10);
  const extra = await renderSvg(
    {
      title: title('Extra load: hedged copies per 100 requests', sub),
      legend: legend(),
      grid,
      xAxis,
      yAxis: { type: 'value', ...axisName('extra requests, %'), nameGap: 50 },
      series: extraSeries.map((series, i) => (i === 0 ? { ...series, markLine: ratio } : series)),
    },
    width,
    height,
  );
  return [
    { file: 'tail-p50.svg', svg: await latency('p50', (p) => p.p50Ms) },
    { file: 'tail-p99.svg', svg: await latency('p99', (p) => p.p99Ms) },
    { file: 'tail-p999.svg', svg: await latency('p99.9', (p) => p.p999Ms) },
    { file: 'tail-extra.svg', svg: extra },
  ];
};

const FLEET_TITLES = {
  outage: 'An origin that is down: attempts per second, four budgets or one',
  pacer: 'A rate limit met by one process before the others start: attempts per second',
  breaker: 'An origin that fails and comes back: attempts per second reaching it',
} as const;

/**
 * One chart per scenario of the fleet experiment (its first run): the attempts per second that reach
 * the origin with local state and with the fleet's, and (dashed) those it refused (429, 503).
 */
export const fleetCharts = async (result: FleetResult, size: ChartSize = {}): Promise<Chart[]> => {
  const width = size.width ?? 1000;
  const height = size.height ?? 520;
  const s = result.settings;
  const charts: Chart[] = [];
  for (const scenario of s.scenarios) {
    const lines = result.timelines.filter((t) => t.scenario === scenario);
    const perSec = (values: readonly number[], binMs: number) =>
      values.map((v, bin) => [(bin * binMs) / 1000, Math.round((v * 1000 * 10) / binMs) / 10]);
    const svg = await renderSvg(
      {
        title: title(FLEET_TITLES[scenario], `${s.processes} processes · first run · seed ${result.seed}`),
        legend: legend(),
        grid: { left: 80, right: 40, top: 70, bottom: 80 },
        xAxis: { type: 'value', min: 0, ...axisName('time, s') },
        yAxis: { type: 'value', ...axisName('attempts/s'), nameGap: 50 },
        series: lines.flatMap((t) => {
          const color = t.mode === 'local' ? '#d0502a' : '#2a6fd0';
          return [
            {
              type: 'line' as const,
              name: t.mode,
              color,
              showSymbol: false,
              lineStyle: { width: 1.5 },
              data: perSec(t.arrivals, t.binMs),
            },
            {
              type: 'line' as const,
              name: `${t.mode}, refused`,
              color,
              showSymbol: false,
              lineStyle: { width: 1, type: 'dashed' as const },
              data: perSec(t.refused, t.binMs),
            },
          ];
        }),
      },
      width,
      height,
    );
    charts.push({ file: `fleet-${scenario}.svg`, svg });
  }
  return charts;
};

/** Writes charts into `dir` (created if needed) and returns their paths. */
export const writeCharts = async (dir: string, charts: readonly Chart[]): Promise<string[]> => {
  await mkdir(dir, { recursive: true });
  return Promise.all(
    charts.map(async ({ file, svg }) => {
      const path = join(dir, file);
      await writeFile(path, svg);
      return path;
    }),
  );
};
