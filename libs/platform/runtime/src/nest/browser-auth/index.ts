export { BrowserAuthModule, BrowserAuthOptions } from './browser-auth.module';
export { BrowserAuthenticator, BrowserCaller, BrowserRequest, USER_TOKEN_HEADER, firstHeader, isPublicKey } from './browser-authenticator';
export { BrowserKeys, BrowserPublicKey } from './browser-keys';
export { browserKeysMigration } from './browser-keys.migration';
export { corsHeadersFor, preflightHeadersFor } from './browser-cors';
export { MAX_USER_TOKEN_LENGTH, UserTokenClaims, UserTokenResult, verifyUserToken } from './user-token';
export { OperatorCors, isBearer } from './operator-cors';
