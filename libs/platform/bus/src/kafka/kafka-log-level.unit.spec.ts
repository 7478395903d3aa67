import { logLevel as KafkaLogLevel } from 'kafkajs';
import { KafkaLogLine, heraldLevelOfKafkaLog } from './kafka-log-level';

/** kafkajs's own lines, as a healthy start of the services, a rebalance and real trouble produce them. */
describe('the level Herald logs a kafkajs line at', () => {
  const line = (level: KafkaLogLevel, namespace: string, message: string, error?: string): KafkaLogLine => ({ level, namespace, message, error });

  it.each([
    // Topics just created: partitions electing leaders while consumers and lag scrapes ask.
    ['a leadership election', line(KafkaLogLevel.ERROR, 'Connection', 'Response Metadata(key: 3, version: 6)', 'There is no leader for this topic-partition as we are in the middle of a leadership election')],
    ['a leader not there yet', line(KafkaLogLevel.ERROR, 'Connection', 'Response ListOffsets(key: 2, version: 3)', 'This server is not the leader for that topic-partition')],
    ['a partition not hosted yet', line(KafkaLogLevel.ERROR, 'Connection', 'Response Produce(key: 0, version: 7)', 'This server does not host this topic-partition')],
    ['a coordinator loading', line(KafkaLogLevel.ERROR, 'Connection', 'Response FindCoordinator(key: 10, version: 2)', "The coordinator is loading and hence can't process requests for this group")],
    ['a coordinator not available', line(KafkaLogLevel.ERROR, 'Connection', 'Response JoinGroup(key: 11, version: 5)', 'The group coordinator is not available')],
    ['a heartbeat during a rebalance', line(KafkaLogLevel.ERROR, 'Connection', 'Response Heartbeat(key: 12, version: 3)', 'The group is rebalancing, so a rejoin is needed')],
    ['a consumer re-joining', line(KafkaLogLevel.WARN, 'Runner', 'The group is rebalancing, re-joining')],
    ['a commit during a rebalance', line(KafkaLogLevel.WARN, 'ConsumerGroup', 'The group is rebalancing, so a rejoin is needed, resync group')],
    ['partitions of a new topic', line(KafkaLogLevel.WARN, 'ConsumerGroup', 'Consumer is not aware of all assigned partitions, refreshing metadata')],
    ['bounded producer retries', line(KafkaLogLevel.WARN, 'Producer', 'Limiting retries for the idempotent producer may invalidate EoS guarantees')],
    ['the partitioner notice', line(KafkaLogLevel.WARN, '', 'KafkaJS v2.0.0 switched default partitioner. To retain the same partitioning behavior ...')],
    ['a late response at shutdown', line(KafkaLogLevel.WARN, 'RequestQueue', 'Response without match')],
    ['kafkajs info', line(KafkaLogLevel.INFO, 'Consumer', 'Starting')],
  ])('expected at start or in a rebalance, debug: %s', (_case, entry) => {
    expect(heraldLevelOfKafkaLog(entry)).toBe('debug');
  });

  it.each([
    ['a broker not reachable', line(KafkaLogLevel.ERROR, 'Connection', 'Connection error: connect ECONNREFUSED 127.0.0.1:9092')],
    ['no seed broker', line(KafkaLogLevel.ERROR, 'BrokerPool', 'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:9092')],
    ['a request timing out', line(KafkaLogLevel.ERROR, 'Connection', 'Request Produce(key: 0, version: 7)')],
    ['a broker error not known to heal', line(KafkaLogLevel.ERROR, 'Connection', 'Response Produce(key: 0, version: 7)', 'The request included a message larger than the max message size the server will accept')],
    ['a transient error text elsewhere than a response', line(KafkaLogLevel.ERROR, 'Producer', 'This server is not the leader for that topic-partition')],
    ['a consumer restarting', line(KafkaLogLevel.ERROR, 'Consumer', 'Restarting the consumer in 3000ms')],
    ['a failed send', line(KafkaLogLevel.ERROR, 'Producer', 'Failed to send messages: Connection timeout')],
  ])('real trouble stays a warning: %s', (_case, entry) => {
    expect(heraldLevelOfKafkaLog(entry)).toBe('warn');
  });

  it('a consumer that crashed is an error', () => {
    expect(heraldLevelOfKafkaLog(line(KafkaLogLevel.ERROR, 'Consumer', 'Crash: KafkaJSNumberOfRetriesExceeded: Connection timeout'))).toBe('error');
  });
});
