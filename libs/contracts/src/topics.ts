import { CHANNELS, Channel } from './channels';

/**
 * The topic map. Names carry their version (`notify.<entity>.<event>.v1`); a
 * breaking change of a message is a new topic, consumed side by side until the old
 * one drains. Keys: `workspace:recipient` for everything about a recipient, so one
 * engine consumer sees all inputs of a recipient in order.
 */
export interface TopicDefinition {
  readonly name: string;
  readonly key: string;
  readonly producers: readonly string[];
  readonly consumers: readonly string[];
  readonly purpose: string;
}

const topic = (definition: TopicDefinition): TopicDefinition => definition;

export const TOPICS = {
  ingressTrigger: topic({
    name: 'notify.ingress.trigger.v1',
    key: 'any (re-keyed on acceptance)',
    producers: ['client backends (public)'],
    consumers: ['ingest-api'],
    purpose: 'Workflow trigger payloads published straight to Kafka by client backends',
  }),
  ingressEvent: topic({
    name: 'notify.ingress.event.v1',
    key: 'any (re-keyed on acceptance)',
    producers: ['client backends (public)'],
    consumers: ['ingest-api'],
    purpose: 'Events published straight to Kafka by client backends',
  }),
  triggerAccepted: topic({
    name: 'notify.trigger.accepted.v1',
    key: 'workspace:recipient',
    producers: ['workflow-engine (child runs)', 'preference-service (broadcast fan-out)', 'ingest-api before the chunk topic'],
    consumers: ['workflow-engine'],
    purpose: 'One validated trigger per recipient; starts a run',
  }),
  triggerChunkAccepted: topic({
    name: 'notify.trigger.chunk_accepted.v1',
    key: "workspace:recipient of the chunk's first recipient (every recipient of a chunk is on that partition)",
    producers: ['ingest-api'],
    consumers: ['workflow-engine'],
    purpose: 'One validated trigger for up to 100 of its recipients that share a partition; the engine starts one run per recipient',
  }),
  eventAccepted: topic({
    name: 'notify.event.accepted.v1',
    key: 'workspace:distinct_id',
    producers: ['ingest-api'],
    consumers: ['workflow-engine'],
    purpose: 'Validated events: start event-triggered workflows, resume wait-until nodes',
  }),
  broadcastAccepted: topic({
    name: 'notify.broadcast.accepted.v1',
    key: 'workspace:list_id',
    producers: ['ingest-api'],
    consumers: ['preference-service'],
    purpose: 'A validated broadcast to a subscriber list; fanned out as one trigger per member',
  }),
  runCancelRequested: topic({
    name: 'notify.run.cancel_requested.v1',
    key: 'workspace:recipient',
    producers: ['ingest-api'],
    consumers: ['workflow-engine'],
    purpose: 'Cancellation of workflow runs',
  }),
  timerFired: topic({
    name: 'notify.timer.fired.v1',
    key: 'workspace:recipient',
    producers: ['workflow-engine (timer poller)'],
    consumers: ['workflow-engine'],
    purpose: 'Due durable timers (delay, batch and digest windows, wait-until timeouts)',
  }),
  runHttpRequested: topic({
    name: 'notify.run.http_requested.v1',
    key: 'workspace:recipient',
    producers: ['workflow-engine (outbox relay)'],
    consumers: ['workflow-engine (group herald.engine.http)'],
    purpose: 'HTTP requests of webhook and fetch nodes, sent by the engine\'s HTTP worker',
  }),
  deliveryOutcome: topic({
    name: 'notify.delivery.outcome.v1',
    key: 'workspace:recipient',
    producers: ['channel-dispatchers'],
    consumers: ['workflow-engine'],
    purpose: 'sent_by_vendor, delivered, delivery_failure, seen, clicked, bounced, complained (the last from vendor status callbacks, schema_version 2)',
  }),
  webpushEngagement: topic({
    name: 'notify.webpush.engagement.v1',
    key: 'workspace:delivery_id',
    producers: ['ingest-api (the web SDK service worker\'s events)'],
    consumers: ['workflow-engine'],
    purpose: 'A web push message delivered to or clicked in a browser, as its service worker reported it',
  }),
  suppressionChanged: topic({
    name: 'notify.suppression.changed.v1',
    key: 'workspace',
    producers: ['management-api (the API)', 'channel-dispatchers (hard bounces and complaints)'],
    consumers: ['management-api (the list the API shows)', 'channel-dispatchers (the list sends skip)'],
    purpose: "An address put on a workspace's suppression list or taken off it",
  }),
  audienceChanged: topic({
    name: 'notify.audience.changed.v1',
    key: 'workspace:recipient',
    producers: ['preference-service', 'ingest-api'],
    consumers: ['workflow-engine', 'preference-service'],
    purpose: 'Users, objects, lists, tenants and preferences changed (feeds read models)',
  }),
  definitionChanged: topic({
    name: 'notify.definition.changed.v1',
    key: 'workspace',
    producers: ['management-api'],
    consumers: ['workflow-engine', 'ingest-api', 'channel-dispatchers', 'preference-service'],
    purpose: 'Workflows, templates, categories and vendors changed (feeds read models)',
  }),
  definitionApplied: topic({
    name: 'notify.definition.applied.v1',
    key: 'workspace',
    producers: ['ingest-api', 'workflow-engine'],
    consumers: ['management-api (a group per instance)'],
    purpose: 'A read model holds a definition version: a commit answers once the notification API sees it',
  }),
  audienceApplied: topic({
    name: 'notify.audience.applied.v1',
    key: 'workspace',
    producers: ['workflow-engine'],
    consumers: ['ingest-api and preference-service (a group per instance)'],
    purpose: 'The engine\'s audience read model holds these changes: an audience write answers once a trigger sent after it would see it',
  }),
  credentialsChanged: topic({
    name: 'notify.credentials.changed.v1',
    key: 'workspace',
    producers: ['management-api'],
    consumers: ['ingest-api', 'preference-service', 'channel-dispatchers'],
    purpose: 'API keys and workspace keys created, rotated or deleted (feeds authentication)',
  }),
  credentialsApplied: topic({
    name: 'notify.credentials.applied.v1',
    key: 'workspace',
    producers: ['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'],
    consumers: ['management-api (a group per instance)'],
    purpose: 'A credentials read model holds these changes: an API key create or delete answers once every service checking keys sees it',
  }),
  inboxUpdated: topic({
    name: 'notify.inbox.updated.v1',
    key: 'workspace:recipient',
    producers: ['channel-dispatchers'],
    consumers: ['channel-dispatchers (a group per replica: the inbox event streams and the web SDK feed sockets)'],
    purpose: "An inbox message stored or its seen/read/archived state changed, or many at once (all read, bulk seen, badge reset): pushed to the recipient's open event streams and sockets",
  }),
  messageStatus: topic({
    name: 'notify.status.v1',
    key: 'workspace:recipient',
    producers: ['management-api (from notify.delivery.outcome.v1)'],
    consumers: ['client backends (public)'],
    purpose: "Every status change of a message, once each (the status webhooks' body): for clients that read Kafka",
  }),
  replayRequested: topic({
    name: 'notify.replay.requested.v1',
    key: 'workspace',
    producers: ['management-api'],
    consumers: ['workflow-engine'],
    purpose: 'What-if replay jobs: a definition to replay recorded runs of a workflow against, and which runs',
  }),
  replayProgressed: topic({
    name: 'notify.replay.progressed.v1',
    key: 'workspace',
    producers: ['workflow-engine'],
    consumers: ['management-api'],
    purpose: 'Progress and per-run results of a what-if replay job; the last one carries the summary',
  }),
  deadLetter: topic({
    name: 'notify.deadletter.v1',
    key: 'original key',
    producers: ['every consumer'],
    consumers: ['operators'],
    purpose: 'Messages that failed validation, with the reason and where they came from',
  }),
} as const;

export type TopicKey = keyof typeof TOPICS;

/** Each channel has its own delivery topic, so ops can scale the channel that lags. */
export function deliveryTopic(channel: Channel): TopicDefinition {
  return {
    name: `notify.delivery.${channel}.requested.v1`,
    key: 'workspace:recipient',
    producers: ['workflow-engine (outbox relay)'],
    consumers: [`channel-dispatchers (group herald.dispatch.${channel})`],
    purpose: `Delivery commands for the ${channel} channel`,
  };
}

export function allTopics(): TopicDefinition[] {
  return [...Object.values(TOPICS), ...CHANNELS.map(deliveryTopic)];
}
