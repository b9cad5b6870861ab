/**
 * Flag tables for `jitterbug-sim`: each flag is one row (its name, the kind of value it takes with
 * its limits, its default and its help), and the parsing, the defaults, the limit checks and the
 * `--help` lines all derive from the rows. The experiments' tables are in `command.ts`.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** A bad command line: reported on stderr with exit code 2. */
export class UsageError extends Error {
  /** `'UsageError'`. */
  override name = 'UsageError';
}

/** The kind of value a flag takes: how its text becomes the value, and its limits. */
export interface Kind<V> {
  /** What the value looks like in the help: `N`, `MS`, `LIST`. */
  readonly arg: string;
  /** The limits, in the help. */
  readonly limits?: string;
  /** The value of the text given to `--name`, or a {@link UsageError} naming the flag. */
  readonly parse: (name: string, text: string) => V;
  /** The default as the help writes it, where `String(value)` would not do. */
  readonly show?: (value: V) => string;
}

/** One row of a flag table: `--name`, the kind of value it takes, its default and its help. */
export interface Flag<V> extends Pick<Kind<V>, 'arg' | 'parse'> {
  readonly name: string;
  /** The help, limits and default included. */
  readonly help: string;
  readonly default: V;
}

/** A command's flags, keyed by the option each one sets. */
export type FlagTable = Readonly<Record<string, Flag<unknown>>>;

/** The values a {@link FlagTable} parses to. */
export type FlagValues<T extends FlagTable> = { [K in keyof T]: T[K] extends Flag<infer V> ? V : never };

const NBSP = '\u00a0';
/** `text` kept on one line of the help: its spaces do not break (see {@link flagHelp}). */
const unbroken = (text: string): string => text.replaceAll(' ', NBSP);

/**
 * A row: `--name` takes a `kind` of value, `value` when absent (`undefined` leaves the option
 * unset). `shown` says the default in words where the value would not; `note` follows it.
 */
export const flag = <V, const D extends V | undefined = V>(
  name: string,
  kind: Kind<V>,
  value: D,
  help: string,
  { shown, note }: { readonly shown?: string; readonly note?: string | undefined } = {},
): Flag<V | D> => {
  const said = shown ?? (value === undefined ? '' : (kind.show?.(value as V) ?? String(value)));
  const fallback = said === '' ? '' : ` ${unbroken(`(default ${said}${note ? `, ${note}` : ''})`)}`;
  const limits = kind.limits ? `, ${kind.limits}` : '';
  return { arg: kind.arg, parse: kind.parse, name, help: help + limits + fallback, default: value };
};

/** The limits of a number. */
interface NumberRule {
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
  readonly positive?: boolean;
}

const parseNumber = (name: string, text: string, rule: NumberRule): number => {
  const { min = -Infinity, max = Infinity, integer = false, positive = false } = rule;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const inRange = value >= min && value <= max && (!positive || value > 0);
  if (Number.isFinite(value) && inRange && (!integer || Number.isInteger(value))) return value;
  const what = `${positive ? 'a positive ' : integer ? 'an ' : 'a '}${integer ? 'integer' : 'number'}`;
  const low = min > -Infinity ? ` >= ${min}` : '';
  const high = max < Infinity ? `${low ? ' and' : ''} <= ${max}` : '';
  throw new UsageError(`--${name} must be ${what}${low}${high}, got "${text}"`);
};

/** A number within `rule`; the help states the limits that "a number" or "above 0" does not. */
export const number = (rule: NumberRule, arg = 'N'): Kind<number> => {
  const { min, max, integer, positive } = rule;
  const low = integer && positive ? 1 : (min ?? 0);
  const limits = max !== undefined ? `${low} to ${max}` : min !== undefined && min > 0 ? `>= ${min}` : '';
  return { arg, limits: unbroken(limits), parse: (name, text) => parseNumber(name, text, rule) };
};

/** A whole number from 1 to `max`. */
export const count = (max: number): Kind<number> => number({ integer: true, positive: true, max });
/** A number from `min` to `max`. */
export const between = (min: number, max: number, arg = 'N'): Kind<number> => number({ min, max }, arg);
/** A number >= `min`. */
export const atLeast = (min: number, arg = 'N'): Kind<number> => number({ min }, arg);
/** A number above 0. */
export const positive = (arg = 'N'): Kind<number> => number({ positive: true }, arg);

/** Seconds, or `off` (also `none`) for none. */
export const secondsOrOff: Kind<number | undefined> = {
  arg: 'S|off',
  parse: (name, text) =>
    text === 'off' || text === 'none' ? undefined : parseNumber(name, text, { min: 0 }),
};

/** A comma-separated list of names from `known`, without repeats. */
export const names = <T extends string>(known: readonly T[]): Kind<readonly T[]> => ({
  arg: 'LIST',
  limits: `from ${known.join(', ')}`,
  parse: (name, text) => {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (items.length === 0) throw new UsageError(`--${name} needs at least one name (${known.join(', ')})`);
    const unknown = items.find((item) => !(known as readonly string[]).includes(item));
    if (unknown !== undefined)
      throw new UsageError(`--${name}: unknown name "${unknown}"; choose from ${known.join(', ')}`);
    return [...new Set(items)] as T[];
  },
});

/** One name from `known`. */
export const oneOf = <T extends string>(known: readonly T[], arg: string): Kind<T> => ({
  arg,
  parse: (name, text) => {
    if ((known as readonly string[]).includes(text)) return text as T;
    throw new UsageError(`--${name} must be one of ${known.join(', ')}, got "${text}"`);
  },
});

/** Two numbers >= 0 as `A:B` (`arg` names them: `FROM:TO`); `ordered` refuses B below A. */
export const pair = (arg: string, unit: string, ordered = false): Kind<readonly [number, number]> => ({
  arg,
  show: (value) => value.join(':'),
  parse: (name, text) => {
    const parts = text.split(':');
    if (parts.length !== 2) throw new UsageError(`--${name} must be ${arg} in ${unit}, got "${text}"`);
    const [a, b] = parts.map((part) => parseNumber(name, part, { min: 0 })) as [number, number];
    if (ordered && b < a) throw new UsageError(`--${name} must not end before it starts, got "${text}"`);
    return [a, b];
  },
});

/**
 * A sweep: `FROM:TO:STEP`, a list like `example`, or one value; each value and the step must pass
 * `ok` (`accepts` says it in words). A range is counted before it is made, so that a tiny step is
 * refused instead of filling memory.
 */
export const sweep = (
  ok: (x: number) => boolean,
  accepts: string,
  example: string,
  maxCount = Infinity,
): Kind<readonly number[]> => ({
  arg: 'SPEC',
  parse: (name, text) => {
    const bad = (why: string): never => {
      throw new UsageError(
        `--${name} ${why}, got "${text}" (use FROM:TO:STEP, a list like ${example}, or one number)`,
      );
    };
    const value = (part: string): number =>
      part.trim() !== '' && ok(Number(part)) ? Number(part) : bad(`takes ${accepts}`);
    const tooMany = (): never => bad(`holds at most ${maxCount} ${name}`);
    if (!text.includes(':')) {
      const values = text.split(',').map(value);
      return values.length > maxCount ? tooMany() : values;
    }
    const parts = text.split(':');
    if (parts.length !== 3) bad('range needs three parts');
    const [from, to, step] = parts.map(value) as [number, number, number];
    if (to < from) bad('range must not end before it starts');
    // The epsilon keeps 0.1:0.9:0.1 from losing its last point to rounding.
    const length = Math.floor((to - from) / step + 1e-9) + 1;
    if (length > maxCount) tooMany();
    return Array.from({ length }, (_, i) => Number((from + i * step).toFixed(10)));
  },
});

const isDirectory = (path: string): boolean | undefined => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return undefined;
  }
};

/**
 * A path to write to, a file or (created if missing) a directory: checked before the experiment
 * runs, so that minutes of sweep do not end in a path that cannot be written.
 */
export const path = (directory: boolean): Kind<string | undefined> => ({
  arg: directory ? 'DIR' : 'FILE',
  parse: (name, text) => {
    const bad = (why: string): never => {
      throw new UsageError(
        `--${name} must be a ${directory ? 'directory' : 'file'} that can be written, got "${text}"${why}`,
      );
    };
    const found = text === '' ? bad('') : isDirectory(text);
    if (found === true && !directory) bad(', a directory');
    if (found === false && directory) bad(', which is not a directory');
    let parent = dirname(resolve(text));
    while (found === undefined && isDirectory(parent) === undefined && parent !== dirname(parent))
      parent = dirname(parent);
    if (found === undefined && !isDirectory(parent)) bad(`: "${parent}" is not a directory`);
    return text;
  },
});

/**
 * Values that start with a dash and a digit (`--runs -1`), which `parseArgs` refuses as ambiguous,
 * joined to their flag (`--runs=-1`), so that the flag's own check says what is wrong.
 */
const joinNegatives = (args: readonly string[], table: FlagTable): string[] => {
  const takesValue = new Set(Object.values(table).map((r) => `--${r.name}`));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [arg, next] = [args[i]!, args[i + 1]];
    if (takesValue.has(arg) && next !== undefined && /^-\.?\d/.test(next)) out.push(`${arg}=${args[++i]}`);
    else out.push(arg);
  }
  return out;
};

/**
 * Parses `args` against `table`: each row's value, or its default where the flag is absent.
 *
 * @returns `undefined` when `--help` (`-h`) was given.
 */
export const parseFlags = <T extends FlagTable>(
  table: T,
  args: readonly string[],
): FlagValues<T> | undefined => {
  const options = Object.fromEntries(Object.values(table).map((r) => [r.name, { type: 'string' as const }]));
  const { values } = parseArgs({
    args: joinNegatives(args, table),
    options: { ...options, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return undefined;
  const given = values as Record<string, string | undefined>;
  const parsed = Object.entries(table).map(([key, r]) => {
    const text = given[r.name];
    return [key, text === undefined ? r.default : r.parse(r.name, text)];
  });
  return Object.fromEntries(parsed) as FlagValues<T>;
};

const HELP_COLUMN = 25;
const HELP_WIDTH = 100;

/** `text` in lines of at most `width` characters, broken between words. */
const wrap = (text: string, width: number): string[] => {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
};

/** The table's `Options:` lines: each flag, then its help from {@link HELP_COLUMN} on, wrapped. */
export const flagHelp = (table: FlagTable): string => {
  const rows = Object.values(table).map((r) => [`--${r.name} ${r.arg}`, r.help]);
  const lines = [...rows, ['-h, --help', 'show this help']].map(([flag, help]) => {
    const head = `  ${flag}`;
    const body = wrap(help!, HELP_WIDTH - HELP_COLUMN);
    const first = head.length < HELP_COLUMN ? [head.padEnd(HELP_COLUMN) + body.shift()] : [head];
    return [...first, ...body.map((line) => ' '.repeat(HELP_COLUMN) + line)];
  });
  return lines.flat().join('\n').replaceAll(NBSP, ' ');
};
