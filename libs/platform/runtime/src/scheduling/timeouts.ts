/** `promise`, or a rejection when it has not settled within `ms`; the timer never outlives it. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Whether `done` resolved within `ms` (false once the time is up; it is not cancelled). */
export function resolvesWithin(done: Promise<unknown>, ms: number): Promise<boolean> {
  return withTimeout(done.then(() => true), ms).catch(() => false);
}
