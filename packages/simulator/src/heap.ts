/**
 * A binary min-heap of events for discrete-event loops. Each item is a small integer id (a client,
 * a request) with at most one pending event at a time. Ids and their times live side by side in
 * typed arrays, in heap order, so comparisons read the times directly: no allocation per event and
 * no indirection through the id.
 */
export class EventHeap {
  readonly #ids: Int32Array;
  readonly #times: Float64Array;
  #size = 0;

  /** @param capacity - the largest number of pending events. */
  constructor(capacity: number) {
    this.#ids = new Int32Array(capacity);
    this.#times = new Float64Array(capacity);
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
  }

  /** Removes and returns the id with the earliest event. */
  pop(): number {
    const top = this.#ids[0]!;
    const last = --this.#size;
    if (last > 0) this.#siftDown(this.#ids[last]!, this.#times[last]!);
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
      let childTime = times[child]!;
      const right = child + 1;
      if (right < size) {
        const rightTime = times[right]!;
        if (rightTime < childTime) {
          child = right;
          childTime = rightTime;
        }
      }
      if (time <= childTime) break;
      ids[i] = ids[child]!;
      times[i] = childTime;
      i = child;
    }
    ids[i] = id;
    times[i] = time;
  }
}
