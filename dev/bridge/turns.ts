// The WebSocket path's bound: at most `max` Postgres sessions at once, the rest waiting in order.

/** A FIFO of waiters for at most `max` sessions at once. */
export class Turns {
  private used = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly max: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves true with a turn, or false when none came within `ms` or `cancel` fired first. */
  take(ms: number, cancel: (fn: () => void) => void): Promise<boolean> {
    if (this.used < this.max) {
      this.used++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const leave = (got: boolean) => {
        clearTimeout(timer);
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(got);
      };
      const grant = () => leave(true); // the releaser has passed its turn on: `used` is unchanged
      const timer = setTimeout(() => leave(false), ms);
      this.queue.push(grant);
      cancel(() => leave(false));
    });
  }

  give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.used--;
  }
}
