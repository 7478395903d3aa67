import { Inject, Injectable } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, HERALD_CONFIG, HeraldConfig, SecretBox } from '@herald/runtime';
import { SECRETS_KEY } from '../../accounts/secrets-key';
import { OperatorRepository } from '../operator.repository';
import { OperatorSessions, StartedSession } from '../operator-sessions';
import { OidcClient, OidcLoginState } from './oidc-client';

/** The cookie that carries a login's state, PKCE verifier and nonce to the callback, sealed. */
export const OIDC_STATE_COOKIE = 'herald_oidc';
export const OIDC_CALLBACK_PATH = '/v1/operator_session/oidc/callback/';
const SEAL_CONTEXT = 'oidc-login';

/**
 * Sign-in through the team's identity provider (HERALD_OIDC_ISSUER, _CLIENT_ID,
 * _CLIENT_SECRET): the login's secrets travel sealed in an HttpOnly cookie of this browser
 * (no server state, so any replica takes the callback), and the verified email must
 * belong to an operator an owner invited or added; an invited one becomes active.
 */
@Injectable()
export class OidcSignIn {
  private readonly client?: OidcClient;
  private readonly box: SecretBox;

  constructor(
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(CLOCK) clock: Clock,
    @Inject(SECRETS_KEY) secretsKey: Buffer,
    private readonly operators: OperatorRepository,
    private readonly sessions: OperatorSessions,
  ) {
    this.client = config.oidc ? new OidcClient(config.oidc, () => clock.now()) : undefined;
    this.box = new SecretBox(secretsKey);
  }

  get configured(): boolean {
    return this.client !== undefined;
  }

  /** Where to send the browser, and the sealed state for its cookie. */
  async begin(redirectUri: string): Promise<{ url: string; sealedState: string }> {
    const { url, state } = await this.required().begin(redirectUri);
    return { url, sealedState: this.box.seal(JSON.stringify(state), SEAL_CONTEXT).toString('base64url') };
  }

  async complete(sealedState: string | undefined, returnedState: string | undefined, code: string | undefined): Promise<StartedSession> {
    const client = this.required();
    if (!sealedState) throw new HeraldError('authentication_failed', 'SSO: this browser started no sign-in (cookies blocked?): start again');
    let login: OidcLoginState;
    try {
      login = JSON.parse(this.box.open(Buffer.from(sealedState, 'base64url'), SEAL_CONTEXT)) as OidcLoginState;
    } catch {
      throw new HeraldError('authentication_failed', 'SSO: the sign-in state is not readable: start again');
    }
    const identity = await client.complete(login, returnedState, code);
    const operator = await this.operators.findByEmail(identity.email);
    if (!operator) throw new HeraldError('permission_denied', `SSO: ${identity.email} is not an operator of this Herald: ask an owner to invite you`);
    if (operator.status === 'invited') await this.operators.activate(operator.id);
    return this.sessions.start({ ...operator, status: 'active' }, 'oidc');
  }

  private required(): OidcClient {
    if (!this.client) throw HeraldError.notFound('SSO is not configured (HERALD_OIDC_ISSUER)');
    return this.client;
  }
}
