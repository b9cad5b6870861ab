/**
 * Describes a thrown value as JSON, down its `cause` chain: the lead question of the matrix is
 * what each runtime throws for the same network failure, so every field a runtime sets is kept.
 */
import type { ErrorShape } from '../protocol.ts';

const SKIPPED = new Set(['name', 'message', 'code', 'cause', 'stack']);
const MAX_DEPTH = 4;

const text = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return `[object ${typeof name === 'string' ? name : 'Object'}]`;
  }
  return String(value);
};

export const errorShape = (error: unknown, withStack = false, depth = 0): ErrorShape => {
  if (typeof error !== 'object' || error === null) {
    return { name: typeof error, message: String(error), className: typeof error };
  }
  const e = error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown; stack?: unknown };
  const props: Record<string, string> = {};
  for (const key of Object.keys(error)) if (!SKIPPED.has(key)) props[key] = text((error as never)[key]);
  const className = (error as { constructor?: { name?: unknown } }).constructor?.name;
  return {
    name: typeof e.name === 'string' ? e.name : 'unknown',
    message: typeof e.message === 'string' ? e.message : String(error),
    className: typeof className === 'string' ? className : 'Object',
    ...(typeof e.code === 'string' || typeof e.code === 'number' ? { code: e.code } : {}),
    ...(Object.keys(props).length > 0 ? { props } : {}),
    ...(e.cause !== undefined && depth < MAX_DEPTH ? { cause: errorShape(e.cause, false, depth + 1) } : {}),
    ...(withStack && typeof e.stack === 'string' ? { stack: e.stack } : {}),
  };
};
