export * from './message-bus.port';
export { partitionFor } from './partitioner';
export { InProcessBus, InProcessBusOptions } from './in-process/in-process-bus';
export { KafkaBus, KafkaBusOptions, KafkaBusLogger } from './kafka/kafka-bus';
