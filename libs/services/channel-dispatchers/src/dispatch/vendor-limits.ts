/**
 * Bounds the calls in flight to each vendor configuration: a burst of one channel opens
 * at most `limit` connections to a vendor (its rate limits, an SMTP server's connection
 * cap), and the rest wait their turn in arrival order.
 */
export class VendorLimits {
  private readonly slots = new Map<string, { active: number; readonly waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, call: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.active >= this.limit) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    else slot.active += 1;
    try {
      return await call();
    } finally {
      // The slot passes to the next waiter as it is; without one it is freed.
      const next = slot.waiting.shift();
      if (next) next();
      else {
        slot.active -= 1;
        if (slot.active === 0) this.slots.delete(key);
      }
    }
  }
}
