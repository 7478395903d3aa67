export * from './consumer-of';
export * from './herald-bus-transport';
