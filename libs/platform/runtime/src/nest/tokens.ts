/** Injection tokens of the platform ports. A class injects only the ports it uses. */
export const HERALD_CONFIG = Symbol('HERALD_CONFIG');
export const HERALD_LOGGER = Symbol('HERALD_LOGGER');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
/** A `BusBacklog`, or null when the bus keeps its backlog elsewhere (Kafka). */
export const BUS_BACKLOG = Symbol('BUS_BACKLOG');
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
export const HEALTH_REGISTRY = Symbol('HEALTH_REGISTRY');
export const DATABASE_URL = Symbol('DATABASE_URL');
export const CLOCK = Symbol('CLOCK');

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
