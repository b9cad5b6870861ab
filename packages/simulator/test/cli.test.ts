import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseClients, runCli } from '../src/index.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--conditions=@jitterbug/source', CLI, ...args], { encoding: 'utf8' });

const dir = mkdtempSync(join(tmpdir(), 'jitterbug-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A regular file, under which no path can be created. */
const file = join(dir, 'a-file');
writeFileSync(file, '');

describe('jitterbug-sim (spawned)', () => {
  it('prints help with examples and exits 0', () => {
    for (const command of ['occ', 'storm']) {
      const r = run(command, '--help');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain(`jitterbug-sim ${command}`);
    }
  });

  const bad: [string[], RegExp][] = [
    [['occ', '--runs', 'zero'], /--runs must be a positive integer/],
    [['occ', '--clients', '10:5:1'], /--clients/],
    [['occ', '--strategies', 'full,wobbly'], /unknown name "wobbly"/],
    [['occ', '--nope'], /Unknown option '--nope'/],
    [['occ', '--base', '100', '--cap', '10'], /--cap/],
    [['occ', '--clients', '20000'], /--clients takes whole numbers from 1 to 10000/],
    [['occ', '--runs', '1000000'], /--runs must be a positive integer <= 100000/],
    [['occ', '--hist-clients', '50000'], /--hist-clients must be an integer >= 0 and <= 10000/],
    [
      ['occ', '--strategies', 'none,full', '--latency-mean', '0', '--latency-sd', '0'],
      /no simulated time pass for none/,
    ],
    [['occ', '--base', '0', '--latency-mean', '0', '--latency-sd', '0'], /--base or --cap is 0/],
    [['storm', '--outage', '50:70'], /--outage/],
    [['storm', '--policies', 'yolo'], /unknown name "yolo"/],
    [['storm', '--retry-after', 'soon'], /--retry-after must be a number/],
    // Each of these ran out of memory (exit 134) or threw a RangeError with a stack trace (exit 1).
    [
      ['storm', '--rate', '1e9', '--runs', '1'],
      /--rate \/ --duration: 60000000000 requests per run, at most 1000000/,
    ],
    [
      ['storm', '--duration', '1e9', '--runs', '1'],
      /--rate \/ --duration: .* requests per run, at most 1000000/,
    ],
    [['storm', '--bin', '1e-6', '--runs', '1'], /--bin \/ --cap \/ --duration: a timeline of \d+ bins/],
    [
      ['storm', '--cap', '1e12', '--base', '1e12', '--runs', '1'],
      /a timeline of \d+ bins .* at most 1000000/,
    ],
    [['storm', '--attempts', '1001'], /--attempts must be a positive integer <= 1000/],
    [['storm', '--runs', '10001'], /--runs must be a positive integer <= 10000/],
    [['storm', '--throttle-k', '0.5'], /--throttle-k must be a number >= 1, got "0.5"/],
    [['storm', '--throttle-window', '0'], /--throttle-window must be a number >= 0.001/],
    [
      ['storm', '--rate', '1000', '--duration', '1', '--outage', '0:1', '--throttle-window', '1e6'],
      /--rate \/ --throttle-window: a throttle warmed up with 1000000000 requests .* at most 10000000/,
    ],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /Usage: jitterbug-sim/],
    // These printed a stack trace (exit 1) and the parser's "ambiguous" message.
    [
      ['occ', '--out', join(file, 'charts')],
      /--out must be a directory that can be written, got ".*": ".*a-file" is not a directory/,
    ],
    [['occ', '--runs', '-1'], /^jitterbug-sim: --runs must be a positive integer <= 100000, got "-1"\n/],
  ];
  for (const [args, message] of bad) {
    it(`exits 2 with a clear message for: ${args.join(' ') || '(nothing)'}`, () => {
      const r = run(...args);
      expect(r.status).toBe(2);
      expect(`${r.stderr}${r.stdout}`).toMatch(message);
    });
  }

  it('runs occ and writes JSON and CSV; no progress bar when stderr is not a TTY', () => {
    const json = join(dir, 'occ.json');
    const csv = join(dir, 'occ.csv');
    const r = run('occ', '--clients', '5,10', '--runs', '3', '--seed', '1', '--json', json, '--csv', csv);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('decorrelated');
    const points = JSON.parse(readFileSync(json, 'utf8'));
    expect(points).toHaveLength(10);
    expect(points[0]).toMatchObject({ strategy: 'none', clients: 5, runs: 3 });
    expect(points[0].calls).toHaveProperty('mean');
    expect(points[0].timeMs).toHaveProperty('sd');
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toBe(
      'strategy,clients,runs,calls_mean,calls_sd,time_ms_mean,time_ms_sd,calls_per_client',
    );
  });
});

describe('runCli (in process)', () => {
  const capture = () => {
    let out = '';
    let err = '';
    return {
      io: {
        stdout: { write: (t: string) => (out += t) },
        stderr: { isTTY: false, write: (t: string) => (err += t) },
      },
      text: () => ({ out, err }),
    };
  };

  it('gives the same table for the same seed', async () => {
    const a = capture();
    const b = capture();
    const args = ['storm', '--seed', '3', '--runs', '1', '--duration', '20', '--outage', '5:10'];
    expect(await runCli(args, a.io)).toBe(0);
    expect(await runCli(args, b.io)).toBe(0);
    const strip = (s: string) => s.replace(/in [\d.]+ s/, '');
    expect(strip(a.text().out)).toBe(strip(b.text().out));
  });

  it('writes SVG charts with --out', async () => {
    const c = capture();
    const out = join(dir, 'charts');
    expect(
      await runCli(
        ['occ', '--clients', '5,10', '--runs', '2', '--hist-clients', '5', '--seed', '1', '--out', out],
        c.io,
      ),
    ).toBe(0);
    const svg = readFileSync(join(out, 'occ-calls.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(c.text().out).toContain('occ-writes.svg');
  });

  it('storm writes the throttle chart when a throttle refused something', async () => {
    const c = capture();
    const out = join(dir, 'storm-charts');
    const args = ['storm', '--seed', '2', '--runs', '1', '--duration', '20', '--outage', '5:10'];
    expect(
      await runCli(
        [...args, '--policies', 'budget,budget+throttle', '--throttle-window', '2', '--out', out],
        c.io,
      ),
    ).toBe(0);
    expect(c.text().out).toContain('throttle K 2, window 2 s');
    expect(readFileSync(join(out, 'storm-throttled.svg'), 'utf8')).toContain('refused locally');
  });

  it('parses client specs', () => {
    expect(parseClients('10:50:20')).toEqual([10, 30, 50]);
    expect(parseClients('7,3')).toEqual([7, 3]);
    expect(parseClients('100')).toEqual([100]);
    expect(() => parseClients('10:20:0')).toThrow();
    expect(() => parseClients('1:2')).toThrow();
  });
});

describe('command-line defects (in process)', () => {
  const runOf = async (...args: string[]) => {
    let out = '';
    let err = '';
    const io = {
      stdout: { write: (t: string) => (out += t) },
      stderr: { isTTY: false, write: (t: string) => (err += t) },
    };
    const status = await runCli(args, io);
    return { status, out, err };
  };
  /** A usage error: exit 2, the message on one line, then the hint; nothing run, nothing on stdout. */
  const expectUsage = async (args: string[], message: RegExp) => {
    const r = await runOf(...args);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    const [line, hint, ...more] = r.err.split('\n');
    expect(line).toMatch(message);
    expect(hint).toMatch(/^Run "jitterbug-sim( \w+)? --help" for usage\.$/);
    expect(more).toEqual(['']);
  };
  const quick: Record<string, string[]> = {
    occ: ['--clients', '5', '--runs', '1', '--strategies', 'full'],
    storm: ['--runs', '1', '--duration', '20', '--outage', '5:10', '--policies', 'none'],
    tail: ['--loads', '0.5', '--requests', '200', '--runs', '1', '--variants', 'none'],
  };

  it('says a command is missing, naming the commands', async () => {
    await expectUsage(
      [],
      /^jitterbug-sim: missing command\. Usage: jitterbug-sim occ\|storm\|tail\|pacing\|herd\|fleet \[options\]$/,
    );
  });

  for (const command of ['occ', 'storm', 'tail']) {
    it(`${command}: refuses a path that cannot be written before running`, async () => {
      const cases: [string[], RegExp][] = [
        [
          ['--out', join(file, 'charts')],
          /--out must be a directory that can be written, got ".*": ".*a-file" is not a directory$/,
        ],
        [
          ['--out', file],
          /--out must be a directory that can be written, got ".*a-file", which is not a directory$/,
        ],
        [
          ['--json', join(file, 'deeper', 'x.json')],
          /--json must be a file that can be written, got .*: ".*a-file" is not a directory$/,
        ],
        [['--csv', dir], /--csv must be a file that can be written, got ".*", a directory$/],
        [['--json', ''], /--json must be a file that can be written, got ""$/],
        [['--out='], /--out must be a directory that can be written, got ""$/],
      ];
      for (const [args, message] of cases) await expectUsage([command, ...quick[command]!, ...args], message);
    });

    it(`${command}: says what is wrong with a negative number for every flag that takes one`, async () => {
      const help = (await runOf(command, '--help')).out;
      const flags = [...help.matchAll(/^ {2}--([\w-]+) (\S+)/gm)].filter(
        ([, , arg]) => !['FILE', 'DIR', 'LIST', 'FEED'].includes(arg!),
      );
      expect(flags.length).toBeGreaterThan(5);
      for (const [, flag] of flags) {
        for (const value of ['-1', '-0.5'])
          await expectUsage(
            [command, `--${flag}`, value],
            new RegExp(`^jitterbug-sim: --${flag} (must|takes) .*"${value}`),
          );
      }
    });
  }

  it('reports a chart that cannot be written after all on one line, exit 1', async () => {
    const out = join(dir, 'blocked');
    mkdirSync(join(out, 'occ-calls.svg'), { recursive: true });
    const r = await runOf('occ', ...quick.occ!, '--seed', '1', '--out', out);
    expect(r.status).toBe(1);
    expect(r.out).toContain('seed 1');
    expect(r.err).toMatch(/^jitterbug-sim: EISDIR: .*occ-calls\.svg'\n$/);
  });

  it('derives each help line from the flag table: flag, bounds, default, within 100 columns', async () => {
    const storm = (await runOf('storm', '--help')).out;
    expect(storm).toContain(
      '  --attempts N           attempts per request, counting the first, 1 to 1000 (default 3)',
    );
    expect(storm).toMatch(/--throttle-k K {9}the adaptive throttle's K, >= 1 \(default 2, the core's\)/);
    const tail = (await runOf('tail', '--help')).out;
    expect(tail).toContain(
      "--hedge-ratio R        the hedge budget's ratio, 0 to 1 (default 0.05, the core's)",
    );
    for (const command of ['occ', 'storm', 'tail']) {
      const help = (await runOf(command, '--help')).out;
      for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
      // Every flag the help names is one the parser knows (it asks for the value, not who the flag is).
      for (const [, flag] of help.matchAll(/^ {2}--([\w-]+) /gm))
        await expectUsage([command, `--${flag}`], new RegExp(`Option '--${flag} <value>' argument missing`));
    }
  });
});
