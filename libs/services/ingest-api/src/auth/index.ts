export * from './bearer-token';
export * from './http-date';
export * from './sdk-signature';
export * from './ingress-signature';
