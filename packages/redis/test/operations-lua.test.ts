/**
 * The Lua bodies against the JavaScript ones, on the same cases (`packages/core/test/store-cases.ts`),
 * in a real Redis: each case's state, arguments and time go to the operation's step script
 * (`luaStepScript`, which touches no key) and must come back as the JavaScript step's new state,
 * ttl and result, number for number. And the two codecs read the same text the same way.
 */
import { applyOperation, decodeState, encodeState, LUA_PRELUDE, luaStepScript } from '@jitterbug/core/store';
import { createClient } from '@redis/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedis } from '../../../test/support/redis-server.ts';
import { OPERATION_CASES, stateTextArb } from '../../core/test/store-cases.ts';

let redis: RunningRedis;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startRedis();
  client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on('error', () => {});
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  await redis?.close();
});

const evalsha = async (text: string, args: readonly string[]): Promise<unknown> => {
  const sha = (await client.sendCommand(['SCRIPT', 'LOAD', text])) as string;
  return client.sendCommand(['EVALSHA', sha, '0', ...args]);
};

describe.each(OPERATION_CASES.map(([op, cases]) => [op.name, op, cases] as const))(
  '%s in Lua',
  (_name, operation, cases) => {
    it('steps as the JavaScript body does, on every case', async () => {
      const script = luaStepScript(operation);
      await fc.assert(
        fc.asyncProperty(cases, async ({ state, args, nowMs }) => {
          const text = state === undefined ? '' : encodeState(state);
          const js = applyOperation(operation, text === '' ? undefined : text, args, nowMs);
          const lua = (await evalsha(script, [text, String(nowMs), ...args.map(String)])) as string[];
          expect({
            state: lua[0] === '' ? undefined : decodeState(lua[0]),
            ttlMs: Number(lua[1]),
            result: lua.slice(2).map(Number),
          }).toEqual({
            state: js.write && decodeState(js.write.text),
            ttlMs: js.write?.ttlMs ?? 0,
            result: js.result,
          });
        }),
        { numRuns: 300 },
      );
    });
  },
);

describe('the Lua codec', () => {
  const roundTrip = `${LUA_PRELUDE}
local s = decode(ARGV[1])
if not s then return false end
local out = {}
for i = 1, #s do out[i] = fmt(s[i]) end
return out`;

  it('reads every text as the JavaScript codec does: the same numbers, or no state', async () => {
    await fc.assert(
      fc.asyncProperty(stateTextArb, async (text) => {
        const lua = (await evalsha(roundTrip, [text])) as string[] | null;
        expect(lua === null ? undefined : lua.map(Number)).toEqual(decodeState(text));
      }),
      { numRuns: 500 },
    );
  });
});
