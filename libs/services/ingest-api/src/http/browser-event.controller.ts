import { Controller, Headers, HttpCode, Options, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, BrowserAuthenticator, RequestBodySchema, SuprSendClientErrorFilter } from '@herald/runtime';
import { Acceptance } from '../acceptance/acceptance';
import { WebpushEngagements } from '../acceptance/webpush-engagements';
import { claimedUserOf, isServiceWorkerEvent, readBrowserSdkEvent, readServiceWorkerEvent } from '../validation';
import { BacklogPushBack } from './backlog-push-back.guard';
import { ingestBody } from './request-body';
import { ServerSdkEventAnswer, ServerSdkEvents } from './server-sdk-events';
import { ROUTE_BODIES } from './request-body-schema';

const EVENT_CORS_METHODS = 'POST, OPTIONS';

/**
 * `POST /v2/event`: what SuprSend's web SDK sends from a page (identify, track, every
 * profile edit), with the workspace's public key in Authorization and the user token in
 * x-ss-signature, for the token's user alone (403 for another). A backend SDK's signed
 * (or Bearer) call of the same route is a server one, any user (ServerSdkEvents). Accepted as `/event/`
 * accepts the same record (validation, limits, idempotency, read-your-writes): 202
 * `{"message": "OK"}`. CORS for the public key's allowed origins, errors included, and in
 * the error shape the SDK reads (`error.type`, `error.message`).
 *
 * SuprSend's service worker posts its push notifications' `$notification_delivered`,
 * `$notification_clicked` and `$notification_dismiss` here with the public key alone (it
 * has no user token): those three, and nothing else, are taken so, and only report on a
 * web push message Herald sent (WebpushEngagements).
 */
@Controller('v2/event')
@UseFilters(SuprSendClientErrorFilter)
export class BrowserEventController {
  constructor(
    private readonly acceptance: Acceptance,
    private readonly browsers: BrowserAuthenticator,
    private readonly pushBack: BacklogPushBack,
    private readonly serverEvents: ServerSdkEvents,
    private readonly webpushEngagements: WebpushEngagements,
  ) {}

  @Options()
  async preflight(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, EVENT_CORS_METHODS);
  }

  @Post()
  @RequestBodySchema(ROUTE_BODIES.sdkEvent)
  @HttpCode(202)
  async track(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ message: 'OK' } | ServerSdkEventAnswer> {
    const credential = this.browsers.credentialOf(request);
    // Not a public key: a backend SDK's signature or API key (or nothing, refused as /event/ refuses it).
    if (credential === undefined) return this.serverEvents.acceptOne(request, reply);
    if (credential.token === undefined && isServiceWorkerEvent(request.body)) return this.serviceWorkerEvent(request, reply, credential.publicKey);
    // Authenticated first: from there on the page can read every answer, a 400 included.
    const caller = await this.browsers.authenticateAnyUser(request, reply, credential.publicKey, credential.token, claimedUserOf(request.body));
    // After the credential, so the page can read its 429 too.
    this.pushBack.canActivate();
    const read = readBrowserSdkEvent(ingestBody(request));
    if (!read.ok) throw HeraldError.validation(read.errors);
    if (read.value.distinctId !== caller.userToken.distinctId) throw this.browsers.refuseAnotherUser(request, 'events');
    const { record } = read.value;
    if (record.kind === 'identity') await this.acceptance.acceptIdentityEvent(caller.workspace, record.identity, 'api');
    else await this.acceptance.acceptEvent(caller.workspace, record.event, 'api');
    return { message: 'OK' };
  }

  private async serviceWorkerEvent(request: AuthenticatedRequest, reply: FastifyReply, publicKey: string): Promise<{ message: 'OK' }> {
    const caller = await this.browsers.authenticatePublicKeyOnly(request, reply, publicKey);
    this.pushBack.canActivate();
    const read = readServiceWorkerEvent(ingestBody(request));
    if (!read.ok) throw HeraldError.validation(read.errors);
    await this.webpushEngagements.report(caller.workspace, read.value);
    return { message: 'OK' };
  }
}
