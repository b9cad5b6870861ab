/**
 * How a development build warns: `process.emitWarning` where there is one (Node, Bun, Deno), as a
 * `JitterbugWarning` with a code per kind, so that Node prints it once where it happens and
 * `--disable-warning=JitterbugWarning` (or one code), `--no-warnings` or a `process.on('warning')`
 * handler of the program's own silence or route it; `console.warn` elsewhere (a browser's dev
 * build). Nothing when `NODE_ENV` is `production`: a server run without a bundler resolves the
 * development messages too. Production and browser bundles carry none of this (`short.ts`).
 */

/** The kinds of warning, as their codes. */
export type WarningCode = 'JITTERBUG_UNIT' | 'JITTERBUG_ERROR_CODE' | 'JITTERBUG_ROUTE_UNUSED';

interface ProcessLike {
  readonly env?: Record<string, string | undefined>;
  emitWarning?(message: string, options: { type: string; code: string }): void;
}

/** The host's `process`, if it has one (read when needed: a test may replace `emitWarning`). */
export const hostProcess = (): ProcessLike | undefined => (globalThis as { process?: ProcessLike }).process;

/** `NODE_ENV`, where the host has an environment. */
export const nodeEnv = (): string | undefined => hostProcess()?.env?.NODE_ENV;

/** Emits `message` as a warning of kind `code` (see the module's comment). */
export const warn = (message: string, code: WarningCode): void => {
  if (nodeEnv() === 'production') return;
  const host = hostProcess();
  if (typeof host?.emitWarning === 'function') host.emitWarning(message, { type: 'JitterbugWarning', code });
  else console.warn(`JitterbugWarning: ${message}`);
};
