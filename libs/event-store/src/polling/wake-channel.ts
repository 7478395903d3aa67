/** The one channel every wake-up is sent on; the payload names what to wake. */
export const WAKE_CHANNEL = 'herald_wake';

/** Slots an outbox's keys hash into (a power of two): the most relays that can share one schema. */
export const OUTBOX_SLOTS = 64;

export function outboxWakePayload(schema: string): string {
  return `${schema}.outbox`;
}

export function timersWakePayload(schema: string): string {
  return `${schema}.timers`;
}
