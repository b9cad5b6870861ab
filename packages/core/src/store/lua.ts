/**
 * An operation as a Redis (or Valkey) script: the prelude (the codec of `codec.ts` in Lua 5.1), the
 * operation's step, and an epilogue that reads the key, takes the time from the server (`TIME`),
 * steps and writes the new state with one `SET … PX`. One key per script (`KEYS[1]`), so that it runs
 * on Redis Cluster wherever the key's slot is.
 *
 * A script that fails half way leaves the state as it was: everything is read and computed before the
 * one write, and nothing after it can fail.
 */
import { MAX_TTL_MS } from './apply.ts';
import { NUMBER_LIMIT } from './codec.ts';
import type { StoreOperation } from './port.ts';

/** The helpers every step may use, and the epilogues rely on: the same rules as `codec.ts`. */
export const LUA_PRELUDE = `
local function finite(n) return n ~= nil and n == n and n ~= math.huge and n ~= -math.huge end
local function num(text)
  if type(text) ~= 'string' or not string.find(text, '^%-?[%d%.eE%+%-]+$') then return nil end
  local n = tonumber(text)
  if not finite(n) or math.abs(n) > ${NUMBER_LIMIT} then return nil end
  if n == 0 then return 0 end
  return n
end
local function decode(text)
  if type(text) ~= 'string' or text == '' then return nil end
  local state, start = {}, 1
  while true do
    local space = string.find(text, ' ', start, true)
    local n = num(string.sub(text, start, (space or 0) - 1))
    if n == nil then return nil end
    state[#state + 1] = n
    if not space then return state end
    start = space + 1
  end
end
local function fmt(n)
  if n == 0 then return '0' end
  return string.format('%.17g', n)
end
local function encode(state)
  local parts = {}
  for i = 1, #state do parts[i] = fmt(state[i]) end
  return table.concat(parts, ' ')
end
local function kept(ttl)
  if not finite(ttl) then ttl = 1 end
  return string.format('%d', math.min(${MAX_TTL_MS}, math.max(1, math.ceil(ttl))))
end
`;

const stepOf = (operation: StoreOperation): string =>
  `local function step(state, args, now)\n${operation.lua}\nend\n`;

/**
 * The script a Redis store runs: `EVALSHA sha 1 key ...args`. Answers `{now, ...result}` as text
 * (Lua numbers would reach the client truncated to integers).
 */
export const luaScript = (operation: StoreOperation): string => `-- jitterbug ${operation.name}
${LUA_PRELUDE}${stepOf(operation)}
local args = {}
for i = 1, #ARGV do
  args[i] = num(ARGV[i])
  if args[i] == nil then return redis.error_reply('ERR jitterbug: argument ' .. i .. ' is not a number within ${NUMBER_LIMIT}') end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local state = decode(redis.call('GET', KEYS[1]))
local new, ttl, result = step(state, args, now)
if new then redis.call('SET', KEYS[1], encode(new), 'PX', kept(ttl)) end
local out = { fmt(now) }
for i = 1, #result do out[i + 1] = fmt(result[i]) end
return out
`;

/**
 * The step alone, for the tests that hold the Lua body to the JavaScript one: `EVAL script 0
 * stateText nowMs ...args` answers `{newStateText or '', keptMs or '0', ...result}` and touches no key.
 */
export const luaStepScript = (operation: StoreOperation): string => `-- jitterbug ${operation.name} (step)
${LUA_PRELUDE}${stepOf(operation)}
local now = num(ARGV[2])
local args = {}
for i = 3, #ARGV do args[i - 2] = num(ARGV[i]) end
local new, ttl, result = step(decode(ARGV[1]), args, now)
local out = { '', '0' }
if new then out = { encode(new), kept(ttl) } end
for i = 1, #result do out[i + 2] = fmt(result[i]) end
return out
`;
