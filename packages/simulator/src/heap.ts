/**
 * A binary min-heap of events for discrete-event loops. Each item is a small integer id (a client,
 * a request) with at most one pending event at a time. Ids and their times live side by side in
 * typed arrays, in heap order, so comparisons read the times directly: no allocation per event and
 * no indirection through the id.
 *
 * The slot after the last event holds `+Infinity`, so a sift-down picks the earlier child without
 * asking whether there is a right one, and by arithmetic rather than a branch: which child is earlier
 * is a coin toss the processor cannot predict, at every level of every reschedule. The order the
 * events come out in, ties included, is the plain binary heap's (the left child on a tie).
 */
export class EventHeap {
  readonly #ids: Int32Array;
  readonly #times: Float64Array;
  #size = 0;

  /** @param capacity - the largest number of pending events. */
  constructor(capacity: number) {
    this.#ids = new Int32Array(capacity + 1);
    this.#times = new Float64Array(capacity + 1);
    this.#times[0] = Number.POSITIVE_INFINITY;
  }

  /** Pending events. */
  get size(): number {
    return this.#size;
  }

  /** The id with the earliest event; only call when `size > 0`. */
  peek(): number {
    return this.#ids[0]!;
  }

  /** The earliest event's time; only call when `size > 0`. */
  peekTime(): number {
    return this.#times[0]!;
  }

  /** Schedules `id` at `time`. */
  push(id: number, time: number): void {
    const ids = this.#ids;
    const times = this.#times;
    let i = this.#size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentTime = times[parent]!;
      if (parentTime <= time) break;
      ids[i] = ids[parent]!;
      times[i] = parentTime;
      i = parent;
    }
    ids[i] = id;
    times[i] = time;
    times[this.#size] = Number.POSITIVE_INFINITY;
  }

  /** Removes and returns the id with the earliest event. */
  pop(): number {
    const top = this.#ids[0]!;
    const times = this.#times;
    const last = --this.#size;
    const lastTime = times[last]!;
    times[last] = Number.POSITIVE_INFINITY;
    if (last > 0) this.#siftDown(this.#ids[last]!, lastTime);
    return top;
  }

  /** Reschedules the earliest id (the one `peek` returns) to `time`: a pop and a push in one sift. */
  replaceTop(time: number): void {
    this.#siftDown(this.#ids[0]!, time);
  }

  #siftDown(id: number, time: number): void {
    const ids = this.#ids;
    const times = this.#times;
    const size = this.#size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      // The right child, or the sentinel past the last event, which is never earlier.
      child += Number(times[child + 1]! < times[child]!);
      const childTime = times[child]!;
      if (time <= childTime) break;
      ids[i] = ids[child]!;
      times[i] = childTime;
      i = child;
    }
    ids[i] = id;
    times[i] = time;
  }
}
