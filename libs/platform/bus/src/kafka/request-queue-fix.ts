/**
 * kafkajs 2.2.4 keeps a 1 ms timer running forever on every broker connection
 * (tulios/kafkajs#1556, fix proposed in #1667, unreleased): `RequestQueue`'s
 * `scheduleCheckPendingRequests` schedules the next check even when nothing is pending,
 * and with no throttling its delay is negative, so the check reschedules itself every
 * millisecond for the life of the connection. Every kafkajs consumer holds two or
 * three connections, so a process's idle CPU grew with its subscriptions (15-30% of a
 * core for one engine and one dispatcher on the bench machine; docs/architecture.md, Library choices),
 * and each replica paid it again.
 *
 * The replacement schedules a check only when a request is waiting: after a client-side
 * throttle ends, or 10 ms later (kafkajs's interval) when it waits for nothing visible.
 * A request that waits because too many are in flight is sent when one of them is
 * answered (`fulfillRequest` and the timeout path call `checkPendingRequests`), as in
 * kafkajs. Applied once, on load of the Kafka adapter; it refuses any other kafkajs
 * version, so an upgrade is checked against the fix instead of silently patched.
 */
import { assertPatchedKafkajs } from './kafkajs-version';

/** kafkajs's interval for a pending request that is not throttled. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The fields of kafkajs's `RequestQueue` the fix reads and writes. */
export interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/** kafkajs's `scheduleCheckPendingRequests`, less the timer that runs while nothing is pending. */
export function scheduleCheckPendingRequests(this: RequestQueueState): void {
  if (this.pending.length === 0 || this.throttleCheckTimeoutId) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

let applied = false;

/** Replaces the method on kafkajs's `RequestQueue` (idempotent). */
export function applyRequestQueueFix(): void {
  if (applied) return;
  assertPatchedKafkajs('request-queue-fix.ts', 'check whether the new version still needs it, then update or remove it');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue: { prototype: RequestQueueState & { scheduleCheckPendingRequests(): void } } = require('kafkajs/src/network/requestQueue');
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  applied = true;
}
