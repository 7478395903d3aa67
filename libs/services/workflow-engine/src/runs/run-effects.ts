import {
  DELIVERY_REQUESTED_TYPE,
  DELIVERY_REQUESTED_VERSION,
  RUN_HTTP_REQUESTED_TYPE,
  RUN_HTTP_REQUESTED_VERSION,
  RunHttpRequestedMessage,
  TIMER_FIRED_TYPE,
  TIMER_FIRED_VERSION,
  TOPICS,
  TimerFiredMessage,
  deliveryTopic,
  deterministicUuid,
  envelopeOf,
  outboxMessageOf,
} from '@herald/contracts';
import { OutboxMessage, StepEffects, TimerSchedule } from '@herald/event-store';
import { RunEvent, RunState } from '@herald/workflow';
import { parseRunStreamId, runKey } from './run-stream';

/**
 * What a run's new events make the host do, written in the same transaction as the
 * events: a durable timer per `timer.scheduled`, its deletion on `run.cancelled` (and on
 * the `wait.ended` of an event that beat the wait-until's maximum wait), a leave timer
 * on `accumulation.left` (a cancel at a batch or digest), an
 * HTTP request and a delivery command through the outbox. Message ids derive from the
 * event's own ids, so a step decided again after a lost race produces the same ones.
 */
export function runEffects(events: readonly RunEvent[], after: RunState, streamId: string, now: Date): StepEffects {
  if (after.status === 'new') return {};
  const { workspaceId, runId } = parseRunStreamId(streamId);
  const key = runKey(workspaceId, after.started.recipient, runId);
  const outbox: OutboxMessage[] = [];
  const timers: TimerSchedule[] = [];
  const cancelTimerIds: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'timer.scheduled.v1':
        timers.push(timerOf(event.timer_id, new Date(event.due_at), streamId, runId, workspaceId, key, now));
        break;
      case 'run.cancelled.v1':
        cancelTimerIds.push(...event.cancelled_timers);
        break;
      case 'accumulation.left.v1':
        // Due at once: the host leaves the accumulator right after the cancel, and this
        // durable timer finishes that leave (and any hand-over) if the host dies first.
        timers.push(timerOf(leaveTimerId(runId), now, streamId, runId, workspaceId, key, now));
        break;
      case 'wait.ended.v1':
        if (event.cancelled_timer !== undefined) cancelTimerIds.push(event.cancelled_timer);
        break;
      case 'http.requested.v1': {
        const payload: RunHttpRequestedMessage = { run_id: runId, stream_id: streamId, request: event.request };
        const messageId = deterministicUuid('http', event.request.request_id);
        outbox.push(outboxMessageOf(TOPICS.runHttpRequested.name, key, envelopeOf(RUN_HTTP_REQUESTED_TYPE, RUN_HTTP_REQUESTED_VERSION, messageId, workspaceId, now, payload)));
        break;
      }
      case 'delivery.requested.v1': {
        const messageId = deterministicUuid('delivery', event.delivery.delivery_id);
        const command = envelopeOf(DELIVERY_REQUESTED_TYPE, DELIVERY_REQUESTED_VERSION, messageId, workspaceId, now, event.delivery);
        outbox.push(outboxMessageOf(deliveryTopic(event.delivery.channel).name, key, command, { 'delivery-id': event.delivery.delivery_id }));
        break;
      }
      default:
        break;
    }
  }
  return { outbox, timers, cancelTimerIds };
}

/** The timer that finishes a cancelled run's leave from its batch or digest. */
export const leaveTimerId = (runId: string): string => `${runId}:leave-accumulator`;

function timerOf(timerId: string, dueAt: Date, streamId: string, runId: string, workspaceId: string, key: string, now: Date): TimerSchedule {
  const payload: TimerFiredMessage = { run_id: runId, stream_id: streamId, timer_id: timerId, due_at: dueAt.toISOString() };
  const messageId = deterministicUuid('timer', timerId);
  return {
    timerId,
    dueAt,
    topic: TOPICS.timerFired.name,
    key,
    value: JSON.stringify(envelopeOf(TIMER_FIRED_TYPE, TIMER_FIRED_VERSION, messageId, workspaceId, now, payload)),
  };
}
