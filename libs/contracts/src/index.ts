export * from './channels';
export * from './topics';
export * from './envelope';
export * from './errors';
export * from './messages/envelope-factory';
export * from './messages/credentials-changed.v1';
export * from './messages/definition-changed.v1';
