import { Inject, Injectable } from '@nestjs/common';
import { SuppressionChanged, suppressionAddress } from '@herald/contracts';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { OutcomeFields, outcomeMessage } from '../dispatch/outcome-message';
import { VendorRepository } from '../read-models/vendor.repository';
import { missingCallbackCredentials } from '../vendors/status-callback-urls';
import { VendorConfig } from '../vendors/vendor.port';
import { CallbackEvent, ParsedCallback, mailgunEvents, metaEvents, plivoEvents, postmarkEvents, resendEvents, sendgridEvents, sesEvents, suppressionOf, twilioEvents, vonageEvents } from './callback-events';
import {
  SignatureCheck,
  VONAGE_SIGNATURE_METHODS,
  VonageSignatureMethod,
  checkBasicAuth,
  checkMailgunSignature,
  checkMetaSignature,
  checkPlivoSignature,
  checkSendgridSignature,
  checkSnsSignature,
  checkSvixSignature,
  checkTwilioSignature,
  checkVonageSignature,
  sameSecret,
  snsCertificateUrlProblem,
} from './callback-signatures';
import { SNS_CLIENT, SnsClient } from './sns-client';
import { CallbackRecord, SentDelivery, VendorCallbackRepository } from './vendor-callback.repository';

/** A vendor's request as the route received it. */
export interface CallbackRequest {
  readonly method: 'GET' | 'POST';
  /** The URL the vendor called, as it signed it (scheme and host as the client sent them). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string>>;
  /** The bytes of a JSON body (signatures cover them); undefined for other bodies. */
  readonly rawBody?: Buffer;
  /** The parsed JSON body, or the text of a form or text/plain body. */
  readonly body: unknown;
}

/** What to answer: a status and a JSON body, or (the Meta handshake) a text. */
export type CallbackAnswer = { readonly status: number; readonly body: Record<string, unknown> } | { readonly status: number; readonly text: string };

const answer = (status: number, body: Record<string, unknown>): CallbackAnswer => ({ status, body });
const refused = (status: 401 | 403, reason: string): CallbackAnswer => answer(status, { code: status, error_code: status === 401 ? 'unauthorized' : 'forbidden', message: reason });
const badBody = (path: string, message: string): CallbackAnswer =>
  answer(400, { code: 400, error_code: 'validation_error', message: `${path || 'body'}: ${message}`, errors: [{ path, message }] });

/**
 * Vendor status callbacks: `POST /v1/vendor-callbacks/{vendor_id}/` (and the GETs of the
 * Meta handshake and of Vonage and Plivo receipts sent as GET). The vendor configuration named by
 * the URL says which vendor signs the request and with what; an unsigned or forged
 * request is refused (401) before its body is read for anything else, so it changes
 * nothing. A signed one is mapped to Herald's statuses, each event's message found by the
 * vendor's id recorded at send, and written as a delivery outcome (and, for a hard bounce
 * or a complaint, a suppression of the address) in one transaction. Events of messages
 * Herald did not send (or sent through another workspace) are acknowledged and ignored,
 * so the vendor stops retrying them.
 */
@Injectable()
export class VendorCallbacks {
  constructor(
    private readonly vendors: VendorRepository,
    private readonly store: VendorCallbackRepository,
    @Inject(SNS_CLIENT) private readonly sns: SnsClient,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async handle(vendorId: string, request: CallbackRequest): Promise<CallbackAnswer> {
    const config = await this.vendors.byId(vendorId);
    if (!config) return answer(404, { code: 404, error_code: 'not_found', message: `no vendor configuration ${vendorId}` });
    const kind = `${config.channel}/${config.vendor}`;
    const missing = missingCallbackCredentials(config);
    if (!missing) return answer(404, { code: 404, error_code: 'not_found', message: `${kind} has no status callbacks in Herald` });
    if (missing.length > 0) return refused(403, `status callbacks of ${kind} are not configured: set credentials.${missing.join(', credentials.')}`);
    const secret = (field: string): string => String(config.credentials[field]);

    switch (kind) {
      case 'whatsapp/meta_cloud':
        if (request.method === 'GET') return this.metaHandshake(request, secret('verify_token'));
        return this.verified(config, checkMetaSignature(request.rawBody ?? Buffer.alloc(0), request.headers['x-hub-signature-256'], secret('app_secret')), () => metaEvents(request.body));
      case 'sms/vonage': {
        const params = paramsOf(request);
        const method = String(config.credentials.signature_method ?? 'md5hash') as VonageSignatureMethod;
        if (!VONAGE_SIGNATURE_METHODS.includes(method)) return refused(403, `credentials.signature_method must be one of ${VONAGE_SIGNATURE_METHODS.join(', ')}`);
        return this.verified(config, checkVonageSignature(params, secret('signature_secret'), method), () => vonageEvents(params));
      }
      case 'sms/plivo': {
        const params = paramsOf(request);
        const signature = { signature: request.headers['x-plivo-signature-v3'], nonce: request.headers['x-plivo-signature-v3-nonce'] };
        // A GET's parameters are its query, which the signed URL already holds.
        const postParams = request.method === 'POST' ? params : {};
        return this.verified(config, checkPlivoSignature(request.method, request.url, postParams, signature, secret('auth_token')), () => plivoEvents(params));
      }
      default:
        break;
    }
    if (request.method !== 'POST') return answer(405, { code: 405, error_code: 'method_not_allowed', message: `${kind} posts its callbacks` });
    switch (kind) {
      case 'email/sendgrid':
        return this.verified(
          config,
          checkSendgridSignature(
            request.rawBody ?? Buffer.alloc(0),
            request.headers['x-twilio-email-event-webhook-signature'],
            request.headers['x-twilio-email-event-webhook-timestamp'],
            secret('webhook_verification_key'),
          ),
          () => sendgridEvents(request.body),
        );
      case 'email/mailgun': {
        const body = request.body as { signature?: Record<string, unknown> } | undefined;
        return this.verified(config, checkMailgunSignature(isRecord(body) ? (body.signature as Record<string, unknown>) : undefined, secret('webhook_signing_key')), () =>
          mailgunEvents(request.body),
        );
      }
      case 'email/postmark':
        return this.verified(config, checkBasicAuth(request.headers.authorization, secret('webhook_username'), secret('webhook_password')), () => postmarkEvents(request.body));
      case 'email/resend':
        return this.verified(
          config,
          checkSvixSignature(
            request.rawBody ?? Buffer.alloc(0),
            { id: request.headers['svix-id'], timestamp: request.headers['svix-timestamp'], signature: request.headers['svix-signature'] },
            secret('webhook_secret'),
            this.clock.now(),
          ),
          () => resendEvents(request.body),
        );
      case 'sms/twilio': {
        const params = paramsOf(request);
        return this.verified(config, checkTwilioSignature(request.headers['x-twilio-signature'], request.url, params, secret('auth_token')), () => twilioEvents(params));
      }
      case 'email/ses':
        return this.sesViaSns(config, request, secret('sns_topic_arn'));
      default:
        return answer(404, { code: 404, error_code: 'not_found', message: `${kind} has no status callbacks in Herald` });
    }
  }

  /** Meta's subscription handshake: echo `hub.challenge` when `hub.verify_token` is the configured one. */
  private metaHandshake(request: CallbackRequest, verifyToken: string): CallbackAnswer {
    const { query } = request;
    if (query['hub.mode'] !== 'subscribe' || !sameSecret(query['hub.verify_token'] ?? '', verifyToken)) return refused(403, 'hub.verify_token does not match');
    return { status: 200, text: query['hub.challenge'] ?? '' };
  }

  /**
   * SNS: the topic must be the configured one (checked first: nothing is fetched for a
   * stranger's topic), the certificate an SNS one, the signature its. A subscription
   * confirmation is confirmed; a notification carries an SES event as its Message.
   */
  private async sesViaSns(config: VendorConfig & { workspaceId: string }, request: CallbackRequest, topicArn: string): Promise<CallbackAnswer> {
    let message: unknown = request.body;
    if (typeof message === 'string') {
      try {
        message = JSON.parse(message);
      } catch {
        return badBody('', 'must be an SNS message (JSON)');
      }
    }
    if (!isRecord(message)) return badBody('', 'must be an SNS message (JSON)');
    if (message.TopicArn !== topicArn) return refused(403, 'TopicArn is not the configured sns_topic_arn');
    const certificateProblem = snsCertificateUrlProblem(message.SigningCertURL);
    if (certificateProblem) return refused(401, certificateProblem);
    let certificate: string;
    try {
      certificate = await this.sns.certificate(String(message.SigningCertURL));
    } catch (error) {
      // Not the request's fault, nor provably the vendor's: 401 makes SNS retry later, never a 5xx loop on our side.
      this.logger.warn('SNS signing certificate unavailable', { vendor_id: config.id, reason: error instanceof Error ? error.message : String(error) });
      return refused(401, 'the SNS signing certificate could not be fetched');
    }
    const problem = checkSnsSignature(message, certificate);
    if (problem) return refused(401, problem);
    if (message.Type === 'SubscriptionConfirmation') {
      try {
        await this.sns.confirmSubscription(String(message.SubscribeURL));
      } catch (error) {
        return badBody('SubscribeURL', error instanceof Error ? error.message : String(error));
      }
      this.logger.info('SNS subscription confirmed', { vendor_id: config.id, topic_arn: topicArn });
      return answer(200, { confirmed: true });
    }
    if (message.Type !== 'Notification') return answer(200, { recorded: 0 });
    let ses: unknown;
    try {
      ses = JSON.parse(String(message.Message));
    } catch {
      return badBody('Message', 'must be an SES notification (JSON)');
    }
    return this.record(config, sesEvents(ses));
  }

  private async verified(config: VendorConfig & { workspaceId: string }, check: SignatureCheck, parse: () => ParsedCallback): Promise<CallbackAnswer> {
    if (check !== undefined) {
      this.logger.warn('vendor callback refused', { vendor_id: config.id, vendor: `${config.channel}/${config.vendor}`, reason: check });
      return refused(401, check);
    }
    return this.record(config, parse());
  }

  private async record(config: VendorConfig & { workspaceId: string }, parsed: ParsedCallback): Promise<CallbackAnswer> {
    if (!parsed.ok) return badBody(parsed.path, parsed.message);
    const ids = parsed.events.flatMap((event) => event.messageIds);
    const deliveries = await this.store.sentDeliveries(config.workspaceId, config.channel, ids);
    const byVendorId = new Map(deliveries.map((delivery) => [delivery.vendorMessageId, delivery]));
    const now = this.clock.now();
    const records: CallbackRecord[] = [];
    for (const event of parsed.events) {
      const delivery = event.messageIds.map((id) => byVendorId.get(id)).find((found) => found !== undefined);
      if (delivery) records.push(recordOf(config, delivery, event, now));
    }
    const recorded = await this.store.record(records);
    return answer(200, { received: parsed.events.length, recorded });
  }
}

/** The outcome of one event of a delivery, and the suppression of its address for a hard bounce or complaint. */
export function recordOf(config: VendorConfig, delivery: SentDelivery, event: CallbackEvent, now: Date): CallbackRecord {
  const vendor = `${config.channel}/${config.vendor}`;
  const failed = event.status === 'bounced' || event.status === 'delivery_failure';
  const fields: OutcomeFields = {
    status: event.status,
    vendor,
    vendor_message_id: delivery.vendorMessageId,
    vendor_event: event.vendorEvent,
    ...(failed ? { error: { message: `${config.vendor}: ${event.vendorEvent}${event.detail ? `: ${event.detail}` : ''}`, retryable: false } } : {}),
  };
  // One outcome per status and delivery: a vendor's retry, or a second click, is the same message.
  const outcome = outcomeMessage(delivery, fields, now, 'callback', event.status);
  const reason = suppressionOf(event);
  const address = event.address ?? singleAddress(delivery);
  const record = { deliveryId: delivery.deliveryId, status: event.status, outcome };
  if (!reason || address === undefined) return record;
  const suppression: SuppressionChanged = {
    workspace_id: delivery.workspaceId,
    channel: config.channel,
    address: suppressionAddress(config.channel, address),
    change: 'added',
    reason,
    ...(event.detail ? { detail: event.detail } : {}),
    vendor,
    at: now.toISOString(),
  };
  return { ...record, suppression };
}

/** The delivery's address when it went to one (the callback did not name it). */
function singleAddress(delivery: SentDelivery): string | undefined {
  const identities = delivery.command.destination.identities;
  return identities.length === 1 && typeof identities[0] === 'string' ? identities[0] : undefined;
}

/** A form body's, a JSON body's or the query's parameters, as strings (Twilio and Vonage sign them so). */
function paramsOf(request: CallbackRequest): Record<string, string> {
  if (typeof request.body === 'string') return Object.fromEntries(new URLSearchParams(request.body));
  if (isRecord(request.body)) return Object.fromEntries(Object.entries(request.body).flatMap(([key, value]) => (typeof value === 'string' || typeof value === 'number' ? [[key, String(value)]] : [])));
  return { ...request.query };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
