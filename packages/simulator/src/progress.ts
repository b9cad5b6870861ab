/** A progress bar on stderr, shown only when stderr is a terminal. */

/** Something a bar can be drawn on. */
export interface ProgressStream {
  /** Whether it is a terminal: only then is the bar drawn. */
  readonly isTTY?: boolean;
  /** Writes text as it is. */
  write(text: string): unknown;
}

/** A progress reporter: call `update` often (it redraws at most every 100 ms) and `done` at the end. */
export interface Progress {
  /** `done` of `total` steps are finished. */
  update(done: number, total: number): void;
  /** Clears the bar. */
  done(): void;
}

const SILENT: Progress = { update() {}, done() {} };

/**
 * A progress bar for long sweeps; a no-op when `stream` is not a TTY, so files and pipes stay clean.
 *
 * @param label - shown before the bar.
 */
export const createProgress = (
  label: string,
  stream: ProgressStream = process.stderr,
  width = 30,
): Progress => {
  if (!stream.isTTY) return SILENT;
  let last = 0;
  let shown = false;
  const draw = (done: number, total: number): void => {
    const share = total > 0 ? done / total : 1;
    const filled = Math.round(share * width);
    stream.write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(share * 100)}%`,
    );
    shown = true;
  };
  return {
    update(done, total) {
      const now = performance.now();
      if (done < total && now - last < 100) return;
      last = now;
      draw(done, total);
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
};
