/**
 * Issue 33's careless inputs (`careless-cases.ts`), in Node — the development messages, which say
 * the fix, and the development warnings — and in a browser build of the same table (esbuild,
 * `platform: 'browser'`, as `bench/sizes.ts` bundles: `#messages` is `messages/short.ts`) and a
 * build under the `production` condition (as Vite and webpack resolve it in production builds),
 * each run in this process — the production messages, worded exactly, and no warning at all. Every refusal names its
 * option in both; a call refused before it is sent reaches the server not once; every "right" case
 * is what the server saw. A real `node:http` server on 127.0.0.1 answers.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withRetry } from '@jitterbug/fetch';
import { instrumentRetries } from '@jitterbug/otel';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { build } from 'esbuild';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import * as development from './careless-cases.ts';

type Cases = typeof development;

const here = fileURLToPath(new URL('.', import.meta.url));
let server: ScriptedServer;
let production: Cases;
let productionCondition: Cases;
let bundleText: string;
let bundleInputs: string[];
let productionInputs: string[];

const view = (): development.Server => ({
  url: server.url,
  route: (path, statuses) =>
    server.route(
      path,
      statuses.map((status) => ({ status })),
    ),
  seen: (path) => server.seen(path).length,
});

/**
 * The table bundled for a browser (the `browser` condition, with no `development` one; with
 * `production` when given), imported here: its text and source files, and its exports.
 */
const bundled = async (conditions: string[] = []): Promise<[Cases, string, string[]]> => {
  const result = await build({
    entryPoints: [`${here}careless-cases.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['@jitterbug/source', ...conditions],
    logLevel: 'silent',
    metafile: true,
  });
  const text = result.outputFiles[0]!.text;
  const code = Buffer.from(text).toString('base64');
  const cases = (await import(`data:text/javascript;base64,${code}`)) as Cases;
  return [cases, text, Object.keys(result.metafile.inputs)];
};

/** What `call` threw or rejected with (and that it did). */
const refusalOf = async (call: () => unknown): Promise<unknown> => {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('accepted');
};

beforeAll(async () => {
  server = await startScriptedServer();
  [production, bundleText, bundleInputs] = await bundled();
  [productionCondition, , productionInputs] = await bundled(['production']);
}, 60_000);
afterEach(() => {
  vi.restoreAllMocks();
  server.reset();
});
afterAll(() => server.close());

describe.each([
  ['Node (development messages)', false, false],
  ['a browser build (production messages)', true, false],
  ['a build under the production condition', true, true],
] as const)('%s', (_build, short, productionBuild) => {
  const table = (): Cases => (productionBuild ? productionCondition : short ? production : development);

  it('every refusal is a TypeError naming the option: with the fix, or worded as production words it', async () => {
    const failures: string[] = [];
    for (const refusal of table().refusals()) {
      const error = await refusalOf(() => refusal.call(view()));
      const message = error instanceof TypeError ? error.message : `not a TypeError: ${String(error)}`;
      const named =
        message.startsWith(`jitterbug: option "${refusal.option}"`) ||
        message.startsWith(`jitterbug: unknown option "${refusal.option}"`);
      const worded = short ? message === refusal.short : message.includes(refusal.fix);
      if (!named || !worded) failures.push(`${refusal.kind}: ${refusal.written}\n    ${message}`);
      if (refusal.path && server.seen(refusal.path).length > 0) failures.push(`${refusal.written}: sent`);
    }
    expect(failures).toEqual([]);
  });

  it('covers every kind of issue 33 this table holds, and every library whose names it maps', () => {
    const kinds = new Set(
      table()
        .refusals()
        .map((r) => r.kind),
    );
    expect([...kinds].sort()).toEqual(
      [
        "a client's own option in the options",
        'a policy where options go',
        'a request edit ported from a peer',
        'a request field in the options',
        "another library's option",
        'an opt-in factory given options it does not take',
        'options where a policy goes',
        'route rules',
        'the wrong client',
      ].sort(),
    );
    const libraries = new Set(table().PEER_NAMES.map(([library]) => library));
    for (const library of [
      'got',
      'p-retry',
      'cockatiel',
      'Polly',
      "undici's RetryHandler",
      'axios-retry',
      'ky',
      'fetch-retry',
    ]) {
      expect(libraries).toContain(library);
    }
  });

  it.each(development.rights().map((right, i) => [right.written, i] as const))(
    'does what was meant: %s',
    async (_written, i) => {
      const right = table().rights()[i]!;
      server.route(
        right.path,
        right.statuses.map((status) => ({ status })),
      );
      await Promise.resolve(right.send(view())).catch(() => undefined);
      expect(server.seen(right.path)).toHaveLength(right.sent);
    },
  );

  it.each(development.SLIPS.map(([written], i) => [written, i] as const))('a slip: %s', (_written, i) => {
    const [, options, option, fix] = table().SLIPS[i]!;
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    for (const [, make] of table().ENTRY_POINTS) {
      // Route rules are createRetryPolicy's alone.
      if (options.routes && make !== table().ENTRY_POINTS[0]![1]) continue;
      emitted.mockClear();
      make(options);
      if (short) {
        expect(emitted).not.toHaveBeenCalled();
      } else {
        // Once per policy, naming the option, with the fix; Node's own warning machinery.
        const calls = emitted.mock.calls.filter(([message]) =>
          String(message).includes(`option "${option}"`),
        );
        expect(calls).toHaveLength(1);
        expect(String(calls[0]![0])).toContain(fix);
        expect(calls[0]![1]).toMatchObject({ type: 'JitterbugWarning' });
      }
    }
    expect(warned).not.toHaveBeenCalled();
  });

  it('real settings and real codes are not warned of', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    for (const options of table().NOT_SLIPS) table().ENTRY_POINTS[0]![1](options);
    expect(emitted).not.toHaveBeenCalled();
  });
});

describe('what the production build carries', () => {
  it('the short messages, and none of the development code: no warning, no fix', () => {
    expect(bundleInputs).toContain('packages/core/src/messages/short.ts');
    expect(bundleInputs.filter((input) => /core\/src\/messages\/(?!short\.ts)/.test(input))).toEqual([]);
    expect(bundleText).not.toContain('JitterbugWarning');
    expect(bundleText).not.toContain('emitWarning');
  });

  it('under the production condition, the same short messages and the same files', () => {
    expect([...productionInputs].sort()).toEqual([...bundleInputs].sort());
  });
});

describe('route rules that matched nothing (development, when the run ends by itself)', () => {
  const child = (env: Record<string, string | undefined>): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const run = spawn(
        process.execPath,
        ['--conditions=@jitterbug/source', `${here}unmatched-routes-child.ts`],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, NODE_ENV: undefined, ...env },
        },
      );
      let stderr = '';
      run.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      run.on('exit', (code) => resolve({ code, stderr }));
    });

  it('names each rule that matched none of its policy’s requests, with one that matched no rule', async () => {
    const { code, stderr } = await child({});
    expect(code).toBe(0);
    const warnings = stderr.split('\n').filter((line) => line.includes('JITTERBUG_ROUTE_UNUSED'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(
      'jitterbug: route rule routes[1] ("health") matched none of its policy\'s requests (GET /api/health matched no rule): check its method and its path',
    );
    expect(warnings[0]).toContain("under a client's base URL the call's own path matches too");
    expect(warnings[1]).toContain('routes[2] ("POST /reprots")');
  }, 30_000);

  it('says nothing under NODE_ENV=production or test', async () => {
    for (const NODE_ENV of ['production', 'test']) {
      const { code, stderr } = await child({ NODE_ENV });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    }
  }, 30_000);
});

describe("withRetry(undici's request) (Node)", () => {
  it('refuses its answer once the one attempt is sent, saying what to use, and retries nothing', async () => {
    server.route('/undici', [{ status: 503 }]);
    const error = await refusalOf(() =>
      (withRetry(request as never) as unknown as typeof fetch)(`${server.url}/undici`),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(
      /^jitterbug: option "fetch" must be a fetch function, got .*undici's request\(\) \(its answer has statusCode\)/,
    );
    expect(server.seen('/undici')).toHaveLength(1);
  });
});

describe('instrumentRetries() twice', () => {
  it('with the same meterProvider it is shared; with another, a TypeError says a second one would count every retry twice', () => {
    const provider = new MeterProvider();
    const stops = [
      instrumentRetries({ meterProvider: provider }),
      instrumentRetries({ meterProvider: provider }),
    ];
    try {
      expect(() => instrumentRetries({ meterProvider: new MeterProvider() })).toThrow(
        /^jitterbug: option "meterProvider" must be the one of the instrumentRetries already running .*count each retry twice: call it once/,
      );
    } finally {
      for (const stop of stops) stop();
    }
    // Once both are stopped, another provider may start one.
    instrumentRetries({ meterProvider: new MeterProvider() })();
  });
});
