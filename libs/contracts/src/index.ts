export * from './channels';
export * from './topics';
export * from './envelope';
export * from './errors';
