import { DeliveryStatus, SuppressionReason } from '@herald/contracts';

/** The statuses a vendor's status callback can report about a message it accepted. */
export type CallbackStatus = Extract<DeliveryStatus, 'delivered' | 'delivery_failure' | 'bounced' | 'complained' | 'seen' | 'clicked'>;

/** One thing a vendor said about one message, in Herald's words. */
export interface CallbackEvent {
  /** The vendor's ids of the message, as the send recorded it or as the callback spells it (both are looked up). */
  readonly messageIds: readonly string[];
  readonly status: CallbackStatus;
  /** The vendor's own name for the event (`bounce`, `undelivered`, `read`, ...). */
  readonly vendorEvent: string;
  /** The address the event is about, as the vendor names it (a bounce's recipient). */
  readonly address?: string;
  /** What the vendor said (a bounce's diagnostic, an error code). */
  readonly detail?: string;
}

/** What a callback's body holds: its events, or why it cannot be read (a 400 naming the path). */
export type ParsedCallback = { readonly ok: true; readonly events: readonly CallbackEvent[] } | { readonly ok: false; readonly path: string; readonly message: string };

/** A callback carries at most this many events (SendGrid batches; a larger body is refused before any lookup). */
export const MAX_EVENTS_PER_CALLBACK = 1_000;

/** The suppression an event puts its address on, if any: a hard bounce or a complaint. */
export function suppressionOf(event: CallbackEvent): SuppressionReason | undefined {
  if (event.status === 'bounced') return 'hard_bounce';
  if (event.status === 'complained') return 'complaint';
  return undefined;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined);
const event = (ids: ReadonlyArray<string | undefined>, status: CallbackStatus, vendorEvent: string, address?: string, detail?: string): CallbackEvent => ({
  messageIds: [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))],
  status,
  vendorEvent,
  ...(address === undefined ? {} : { address }),
  ...(detail === undefined ? {} : { detail: detail.slice(0, 500) }),
});
const ok = (events: CallbackEvent[]): ParsedCallback => ({ ok: true, events: events.filter((e) => e.messageIds.length > 0).slice(0, MAX_EVENTS_PER_CALLBACK) });
const bad = (path: string, message: string): ParsedCallback => ({ ok: false, path, message });
/** An id in angle brackets (`<id@domain>`, a Message-ID header) and without. */
const bracketed = (id: string | undefined): string[] => (id === undefined ? [] : [id, id.replace(/^<|>$/g, ''), `<${id.replace(/^<|>$/g, '')}>`]);

/**
 * SendGrid's event webhook: a JSON array of events. `sg_message_id` is the X-Message-Id the
 * send answered, followed by `.filter…`; `bounce` of type `blocked` is a temporary refusal.
 */
export function sendgridEvents(body: unknown): ParsedCallback {
  if (!Array.isArray(body)) return bad('', 'must be an array of SendGrid events');
  if (body.length > MAX_EVENTS_PER_CALLBACK) return bad('', `holds more than ${MAX_EVENTS_PER_CALLBACK} events`);
  const events: CallbackEvent[] = [];
  for (const item of body) {
    if (!isObject(item)) continue;
    const full = text(item.sg_message_id);
    const ids = [full, full?.split('.')[0], text(item['smtp-id'])];
    const address = text(item.email);
    const reason = text(item.reason) ?? text(item.response);
    switch (item.event) {
      case 'delivered':
        events.push(event(ids, 'delivered', 'delivered', address));
        break;
      case 'bounce':
        events.push(event(ids, item.type === 'blocked' ? 'delivery_failure' : 'bounced', item.type === 'blocked' ? 'blocked' : 'bounce', address, reason));
        break;
      case 'dropped':
        events.push(event(ids, 'delivery_failure', 'dropped', address, reason));
        break;
      case 'spamreport':
        events.push(event(ids, 'complained', 'spamreport', address));
        break;
      case 'open':
        events.push(event(ids, 'seen', 'open', address));
        break;
      case 'click':
        events.push(event(ids, 'clicked', 'click', address));
        break;
      default:
        break; // processed, deferred, unsubscribe, group_*: nothing Herald records
    }
  }
  return ok(events);
}

/**
 * Mailgun's webhooks (one event per request): `event-data` with the event, its
 * `severity` for failures (`permanent` is a bounce) and the message's Message-ID header.
 */
export function mailgunEvents(body: unknown): ParsedCallback {
  if (!isObject(body) || !isObject(body['event-data'])) return bad('event-data', 'must be an object');
  const data = body['event-data'];
  const message = isObject(data.message) ? data.message : {};
  const headers = isObject(message.headers) ? message.headers : {};
  const ids = bracketed(text(headers['message-id']));
  const address = text(data.recipient);
  const status = isObject(data['delivery-status']) ? data['delivery-status'] : {};
  const reason = text(status.description) ?? text(status.message) ?? text(data.reason);
  switch (data.event) {
    case 'delivered':
      return ok([event(ids, 'delivered', 'delivered', address)]);
    case 'failed':
      return ok([data.severity === 'permanent' ? event(ids, 'bounced', 'failed/permanent', address, reason) : event(ids, 'delivery_failure', 'failed/temporary', address, reason)]);
    case 'complained':
      return ok([event(ids, 'complained', 'complained', address)]);
    case 'opened':
      return ok([event(ids, 'seen', 'opened', address)]);
    case 'clicked':
      return ok([event(ids, 'clicked', 'clicked', address)]);
    default:
      return ok([]);
  }
}

/** Postmark bounce types that say the address will not work again (the others are soft or informational). */
const POSTMARK_HARD_BOUNCES = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated', 'Unsubscribe', 'AddressChange', 'DnsError']);

/** Postmark's webhooks: one record per request, by `RecordType`. */
export function postmarkEvents(body: unknown): ParsedCallback {
  if (!isObject(body) || typeof body.RecordType !== 'string') return bad('RecordType', 'must be a Postmark record type');
  const ids = [text(body.MessageID)];
  const address = text(body.Recipient) ?? text(body.Email);
  switch (body.RecordType) {
    case 'Delivery':
      return ok([event(ids, 'delivered', 'Delivery', address)]);
    case 'Bounce': {
      const type = text(body.Type) ?? 'Bounce';
      if (type === 'SpamComplaint' || type === 'SpamNotification') return ok([event(ids, 'complained', type, address, text(body.Description))]);
      const status: CallbackStatus = POSTMARK_HARD_BOUNCES.has(type) ? 'bounced' : 'delivery_failure';
      return ok([event(ids, status, type, address, text(body.Details) ?? text(body.Description))]);
    }
    case 'SpamComplaint':
      return ok([event(ids, 'complained', 'SpamComplaint', address)]);
    case 'Open':
      return ok([event(ids, 'seen', 'Open', address)]);
    case 'Click':
      return ok([event(ids, 'clicked', 'Click', address)]);
    default:
      return ok([]);
  }
}

/**
 * Amazon SES event or notification (the SNS message's `Message`, as JSON): `eventType`
 * (configuration-set events) or `notificationType` (identity notifications). The message
 * is found by SES's id, or by its Message-ID header (mail sent through SES's SMTP relay).
 */
export function sesEvents(message: unknown): ParsedCallback {
  if (!isObject(message) || !isObject(message.mail)) return bad('Message.mail', 'must be an SES notification');
  const mail = message.mail;
  const common = isObject(mail.commonHeaders) ? mail.commonHeaders : {};
  const ids = [text(mail.messageId), ...bracketed(text(common.messageId))];
  const kind = text(message.eventType) ?? text(message.notificationType);
  const recipients = (list: unknown, field: string): string[] =>
    Array.isArray(list) ? list.flatMap((item) => (typeof item === 'string' ? [item] : isObject(item) && typeof item[field] === 'string' ? [item[field] as string] : [])) : [];
  switch (kind) {
    case 'Delivery': {
      const delivery = isObject(message.delivery) ? message.delivery : {};
      return ok(recipients(delivery.recipients, 'emailAddress').map((address) => event(ids, 'delivered', 'Delivery', address)));
    }
    case 'Bounce': {
      const bounce = isObject(message.bounce) ? message.bounce : {};
      const permanent = bounce.bounceType === 'Permanent';
      const list = Array.isArray(bounce.bouncedRecipients) ? bounce.bouncedRecipients.filter(isObject) : [];
      return ok(
        list.map((recipient) =>
          event(ids, permanent ? 'bounced' : 'delivery_failure', `Bounce/${String(bounce.bounceType)}`, text(recipient.emailAddress), text(recipient.diagnosticCode) ?? text(bounce.bounceSubType)),
        ),
      );
    }
    case 'Complaint': {
      const complaint = isObject(message.complaint) ? message.complaint : {};
      return ok(recipients(complaint.complainedRecipients, 'emailAddress').map((address) => event(ids, 'complained', 'Complaint', address, text(complaint.complaintFeedbackType))));
    }
    case 'Reject':
      return ok([event(ids, 'delivery_failure', 'Reject', undefined, isObject(message.reject) ? text(message.reject.reason) : undefined)]);
    case 'Open':
      return ok([event(ids, 'seen', 'Open')]);
    case 'Click':
      return ok([event(ids, 'clicked', 'Click')]);
    default:
      return ok([]);
  }
}

/** Resend's webhooks (svix): `type` `email.*`, `data.email_id`, `data.to`. */
export function resendEvents(body: unknown): ParsedCallback {
  if (!isObject(body) || typeof body.type !== 'string' || !isObject(body.data)) return bad('', 'must be a Resend event with type and data');
  const data = body.data;
  const ids = [text(data.email_id)];
  const address = Array.isArray(data.to) ? text(data.to[0]) : text(data.to);
  const bounce = isObject(data.bounce) ? data.bounce : {};
  switch (body.type) {
    case 'email.delivered':
      return ok([event(ids, 'delivered', body.type, address)]);
    case 'email.bounced':
      // Resend reports a transient bounce only when it says so; its default is permanent.
      return ok([event(ids, bounce.type === 'Transient' ? 'delivery_failure' : 'bounced', body.type, address, text(bounce.message))]);
    case 'email.complained':
      return ok([event(ids, 'complained', body.type, address)]);
    case 'email.opened':
      return ok([event(ids, 'seen', body.type, address)]);
    case 'email.clicked':
      return ok([event(ids, 'clicked', body.type, address)]);
    default:
      return ok([]);
  }
}

/**
 * Twilio error codes that say the number will never take a message: unknown or
 * unreachable destination, not a mobile number, the recipient opted out (STOP).
 */
const TWILIO_UNREACHABLE = new Set(['21211', '21214', '21610', '21614', '30005', '30006']);

/** Twilio's status callback (form parameters): `MessageSid`, `MessageStatus`, `ErrorCode`, `To`. */
export function twilioEvents(params: Readonly<Record<string, string>>): ParsedCallback {
  const sid = params.MessageSid ?? params.SmsSid;
  if (!sid) return bad('MessageSid', 'is required');
  const status = params.MessageStatus ?? params.SmsStatus;
  const address = params.To;
  const detail = params.ErrorCode ? `error ${params.ErrorCode}${params.ErrorMessage ? `: ${params.ErrorMessage}` : ''}` : undefined;
  switch (status) {
    case 'delivered':
      return ok([event([sid], 'delivered', status, address)]);
    case 'read':
      return ok([event([sid], 'seen', status, address)]);
    case 'failed':
    case 'undelivered':
      return ok([event([sid], TWILIO_UNREACHABLE.has(params.ErrorCode ?? '') ? 'bounced' : 'delivery_failure', status, address, detail)]);
    default:
      return ok([]); // queued, accepted, sending, sent, ...: Herald knows it was sent
  }
}

/** Vonage SMS error codes for a number that cannot receive (unknown, absent for good, barred, ported away). */
const VONAGE_UNREACHABLE = new Set(['1', '6', '29']);

/** Vonage's SMS delivery receipt: `messageId`, `status`, `err-code`, `msisdn` (the recipient). */
export function vonageEvents(params: Readonly<Record<string, string>>): ParsedCallback {
  const id = params.messageId;
  if (!id) return bad('messageId', 'is required');
  const address = params.msisdn;
  const detail = params['err-code'] && params['err-code'] !== '0' ? `err-code ${params['err-code']}` : undefined;
  switch (params.status) {
    case 'delivered':
      return ok([event([id], 'delivered', 'delivered', address)]);
    case 'failed':
    case 'rejected':
    case 'expired':
      return ok([event([id], VONAGE_UNREACHABLE.has(params['err-code'] ?? '') ? 'bounced' : 'delivery_failure', params.status, address, detail)]);
    default:
      return ok([]); // accepted, buffered, unknown
  }
}

/** Plivo error codes of a number that cannot receive: invalid destination (50), permanently unavailable (70), blocked by the recipient's STOP (200). */
const PLIVO_UNREACHABLE = new Set(['50', '70', '200']);

/** Plivo's message status callback (form parameters, or the query of a GET): `MessageUUID`, `Status`, `ErrorCode`, `To`. */
export function plivoEvents(params: Readonly<Record<string, string>>): ParsedCallback {
  const id = params.MessageUUID;
  if (!id) return bad('MessageUUID', 'is required');
  const address = params.To;
  const detail = params.ErrorCode && params.ErrorCode !== '000' ? `error ${params.ErrorCode}` : undefined;
  switch (params.Status) {
    case 'delivered':
      return ok([event([id], 'delivered', 'delivered', address)]);
    case 'read':
      return ok([event([id], 'seen', 'read', address)]);
    case 'failed':
    case 'undelivered':
    case 'rejected':
      return ok([event([id], PLIVO_UNREACHABLE.has(params.ErrorCode ?? '') ? 'bounced' : 'delivery_failure', params.Status, address, detail)]);
    default:
      return ok([]); // queued, sent: Herald knows it was sent
  }
}

/** Meta error codes of a WhatsApp message that the number cannot receive (not on WhatsApp, undeliverable). */
const META_UNREACHABLE = new Set(['131026', '131021']);

/** WhatsApp Cloud API webhooks: `entry[].changes[].value.statuses[]`, each with `id` (the wamid), `status`, `recipient_id`. */
export function metaEvents(body: unknown): ParsedCallback {
  if (!isObject(body) || !Array.isArray(body.entry)) return bad('entry', 'must be an array');
  const events: CallbackEvent[] = [];
  for (const entry of body.entry.filter(isObject)) {
    for (const change of (Array.isArray(entry.changes) ? entry.changes : []).filter(isObject)) {
      const value = isObject(change.value) ? change.value : {};
      for (const status of (Array.isArray(value.statuses) ? value.statuses : []).filter(isObject)) {
        const ids = [text(status.id)];
        const address = text(status.recipient_id);
        const error = Array.isArray(status.errors) && isObject(status.errors[0]) ? status.errors[0] : undefined;
        const code = text(error?.code);
        const detail = error ? `error ${code ?? '?'}: ${text(error.title) ?? text(error.message) ?? ''}`.trim() : undefined;
        if (status.status === 'delivered') events.push(event(ids, 'delivered', 'delivered', address));
        else if (status.status === 'read') events.push(event(ids, 'seen', 'read', address));
        else if (status.status === 'failed') events.push(event(ids, META_UNREACHABLE.has(code ?? '') ? 'bounced' : 'delivery_failure', 'failed', address, detail));
      }
    }
  }
  return ok(events);
}
