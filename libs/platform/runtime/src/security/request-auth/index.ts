export * from './bearer-token';
export * from './http-date';
export * from './sdk-signature';
