/**
 * Each operation's script, made once per process: its text (`luaScript`) and the SHA-1 that
 * `EVALSHA` names it by, computed here as Redis computes it, so that the first call needs no
 * `SCRIPT LOAD`.
 */
import { createHash } from 'node:crypto';
import { luaScript, type StoreOperation } from '@jitterbug/core/store';

export interface Script {
  readonly text: string;
  readonly sha: string;
}

const scripts = new WeakMap<StoreOperation, Script>();

/** The script of `operation`. */
export const scriptOf = (operation: StoreOperation): Script => {
  let script = scripts.get(operation);
  if (script === undefined) {
    const text = luaScript(operation);
    script = { text, sha: createHash('sha1').update(text).digest('hex') };
    scripts.set(operation, script);
  }
  return script;
};
