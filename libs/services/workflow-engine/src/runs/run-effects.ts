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
} from '@herald/contracts';
import { OutboxMessage, StepEffects, TimerSchedule } from '@herald/event-store';
import { RunEvent, RunState } from '@herald/workflow';
import { parseRunStreamId, runKey } from './run-stream';

/**
 * What a run's new events make the host do, written in the same transaction as the
 * events: a durable timer per `timer.scheduled`, its deletion on `run.cancelled` (and on
 * the `wait.ended` of an event that beat the wait-until's maximum wait), an
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
      case 'timer.scheduled.v1': {
        const payload: TimerFiredMessage = { run_id: runId, stream_id: streamId, timer_id: event.timer_id, due_at: event.due_at };
        const messageId = deterministicUuid('timer', event.timer_id);
        timers.push({
          timerId: event.timer_id,
          dueAt: new Date(event.due_at),
          topic: TOPICS.timerFired.name,
          key,
          value: JSON.stringify(envelopeOf(TIMER_FIRED_TYPE, TIMER_FIRED_VERSION, messageId, workspaceId, now, payload)),
        });
        break;
      }
      case 'run.cancelled.v1':
        cancelTimerIds.push(...event.cancelled_timers);
        break;
      case 'wait.ended.v1':
        if (event.cancelled_timer !== undefined) cancelTimerIds.push(event.cancelled_timer);
        break;
      case 'http.requested.v1': {
        const payload: RunHttpRequestedMessage = { run_id: runId, stream_id: streamId, request: event.request };
        const messageId = deterministicUuid('http', event.request.request_id);
        outbox.push({
          messageId,
          topic: TOPICS.runHttpRequested.name,
          key,
          value: JSON.stringify(envelopeOf(RUN_HTTP_REQUESTED_TYPE, RUN_HTTP_REQUESTED_VERSION, messageId, workspaceId, now, payload)),
          headers: { 'message-id': messageId },
        });
        break;
      }
      case 'delivery.requested.v1': {
        const messageId = deterministicUuid('delivery', event.delivery.delivery_id);
        outbox.push({
          messageId,
          topic: deliveryTopic(event.delivery.channel).name,
          key,
          value: JSON.stringify(envelopeOf(DELIVERY_REQUESTED_TYPE, DELIVERY_REQUESTED_VERSION, messageId, workspaceId, now, event.delivery)),
          headers: { 'message-id': messageId, 'delivery-id': event.delivery.delivery_id },
        });
        break;
      }
      default:
        break;
    }
  }
  return { outbox, timers, cancelTimerIds };
}
