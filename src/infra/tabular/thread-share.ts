import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long reading and mapping a file's rows may hold the thread before the event loop gets it back:
 * runs and previews share the thread with every request, and a request waits at most about this long
 * for each of its steps (a storefront read takes a few: its database answers come back one by one).
 */
export const THREAD_SLICE_MS = 10;

/** Work done in slices of the thread: `due` once a slice is used up, and `pause()` lets the event loop run. */
export class ThreadShare {
  private sliceStart = performance.now();

  get due(): boolean {
    return performance.now() - this.sliceStart > THREAD_SLICE_MS;
  }

  /** Waits until the event loop has handled what came in meanwhile (timers, I/O: requests), then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }
}
