/** The one channel every wake-up is sent on; the payload names what to wake. */
export const WAKE_CHANNEL = 'herald_wake';

/** Slots an outbox's keys hash into (a power of two): the most relays that can share one schema. */
export const OUTBOX_SLOTS = 64;

/** Between a wake-up's target and the process that caused it (`<schema>.outbox@<origin>`). */
export const WAKE_ORIGIN_SEPARATOR = '@';

export function outboxWakePayload(schema: string): string {
  return `${schema}.outbox`;
}

export function timersWakePayload(schema: string): string {
  return `${schema}.timers`;
}
