/** How the relay and the poller report; `HeraldLogger.write` fits as is. */
export type EventStoreLogger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;
