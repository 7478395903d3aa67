export * from './expect-eventually';
export * from './test-infrastructure';
export * from './processes';
export * from './tcp-proxy';
export * from './temporary-database';
export * from './openapi-response-check';
export * from './accepted-trigger';
export * from './seeded-random';
