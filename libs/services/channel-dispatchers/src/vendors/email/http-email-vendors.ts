import { EmailContent, LoadedAttachment } from '@herald/rendering';
import { FORM_HEADERS, JSON_HEADERS, basicAuth, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort } from '../http/http.port';
import { addressOf } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, baseUrlOf, contentOf, sent, stringField } from '../vendor.port';

/** The sender: the template's `from`, else the vendor's `from` setting (or credential, for SMTP). */
export function senderOf(content: EmailContent, config: VendorConfig): string {
  if (content.from) return content.from;
  const from = config.settings.from ?? config.credentials.from;
  if (typeof from !== 'string' || from === '') return stringField({}, 'from');
  return from;
}

/** The content carries extra headers (List-Unsubscribe): each vendor sends them in its own field. */
function hasHeaders(content: EmailContent): content is EmailContent & { readonly headers: Readonly<Record<string, string>> } {
  return content.headers !== undefined && Object.keys(content.headers).length > 0;
}

/** `{[field]: [...]}` with each attachment in the vendor's shape, or nothing when there are none. */
function withAttachments(attachments: readonly LoadedAttachment[] | undefined, shape: (attachment: LoadedAttachment) => Record<string, string>, field = 'attachments'): Record<string, unknown> {
  return attachments && attachments.length > 0 ? { [field]: attachments.map(shape) } : {};
}

/** SendGrid v3 mail/send: Bearer API key, 202 with the id in X-Message-Id. */
export class SendgridVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'sendgrid';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const body = {
      personalizations: [{ to: [{ email: addressOf(request.identity) }] }],
      from: { email: senderOf(content, request.config) },
      ...(content.replyTo ? { reply_to: { email: content.replyTo } } : {}),
      subject: content.subject,
      content: [
        ...(content.text !== undefined ? [{ type: 'text/plain', value: content.text }] : []),
        ...(content.html !== undefined ? [{ type: 'text/html', value: content.html }] : []),
      ],
      custom_args: { herald_delivery_id: request.deliveryId },
      ...(hasHeaders(content) ? { headers: content.headers } : {}),
      ...withAttachments(content.attachments, (attachment) => ({
        content: attachment.content.toString('base64'),
        filename: attachment.filename,
        type: attachment.contentType,
        disposition: 'attachment',
      })),
    };
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/v3/mail/send`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${stringField(request.config.credentials, 'api_key')}` },
      body: JSON.stringify(body),
    });
    if (!isResponse(response)) return response;
    return response.status >= 200 && response.status < 300 ? sent(response.headers['x-message-id']) : failureOf(this.vendor, response);
  }
}

/** Mailgun messages API: basic auth `api:<key>`, form fields, answers `{id}`. */
export class MailgunVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'mailgun';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const form = new URLSearchParams({ from: senderOf(content, request.config), to: addressOf(request.identity), subject: content.subject });
    if (content.text !== undefined) form.set('text', content.text);
    if (content.html !== undefined) form.set('html', content.html);
    if (content.replyTo) form.set('h:Reply-To', content.replyTo);
    for (const [name, value] of Object.entries(content.headers ?? {})) form.set(`h:${name}`, value);
    form.set('v:herald_delivery_id', request.deliveryId);
    const domain = stringField(request.config.credentials, 'domain');
    const encoded = await mailgunBodyOf(form, content.attachments ?? []);
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/v3/${encodeURIComponent(domain)}/messages`,
      headers: { 'content-type': encoded.contentType, authorization: basicAuth('api', stringField(request.config.credentials, 'api_key')) },
      body: encoded.body,
    });
    if (!isResponse(response)) return response;
    return response.status === 200 ? sent(String(parseJson(response.body).id ?? '')) : failureOf(this.vendor, response);
  }
}

/** Mailgun takes files only as multipart parts named `attachment`; without files the form stays urlencoded. */
async function mailgunBodyOf(fields: URLSearchParams, attachments: readonly LoadedAttachment[]): Promise<{ body: string | Buffer; contentType: string }> {
  if (attachments.length === 0) return { body: fields.toString(), contentType: FORM_HEADERS['content-type'] };
  const multipart = new FormData();
  for (const [name, value] of fields) multipart.append(name, value);
  for (const attachment of attachments) multipart.append('attachment', new Blob([attachment.content], { type: attachment.contentType }), attachment.filename);
  // Response encodes the form as fetch would send it, boundary included in its content type.
  const encoded = new Response(multipart);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

/** Postmark /email: X-Postmark-Server-Token, answers `{MessageID, ErrorCode}`; 422 is a refused message. */
export class PostmarkVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'postmark';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const body = {
      From: senderOf(content, request.config),
      To: addressOf(request.identity),
      Subject: content.subject,
      HtmlBody: content.html,
      TextBody: content.text,
      ReplyTo: content.replyTo,
      Metadata: { herald_delivery_id: request.deliveryId },
      ...(hasHeaders(content) ? { Headers: Object.entries(content.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
      ...withAttachments(content.attachments, (attachment) => ({ Name: attachment.filename, Content: attachment.content.toString('base64'), ContentType: attachment.contentType }), 'Attachments'),
    };
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/email`,
      headers: { ...JSON_HEADERS, accept: 'application/json', 'x-postmark-server-token': stringField(request.config.credentials, 'server_token') },
      body: JSON.stringify(body),
    });
    if (!isResponse(response)) return response;
    return response.status === 200 ? sent(String(parseJson(response.body).MessageID ?? '')) : failureOf(this.vendor, response);
  }
}

/** Resend /emails: Bearer API key and an Idempotency-Key it dedupes by for 24 hours. */
export class ResendVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'resend';
  readonly dedupesByKey = true;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const body = {
      from: senderOf(content, request.config),
      to: [addressOf(request.identity)],
      subject: content.subject,
      html: content.html,
      text: content.text,
      reply_to: content.replyTo,
      ...(hasHeaders(content) ? { headers: content.headers } : {}),
      ...withAttachments(content.attachments, (attachment) => ({ filename: attachment.filename, content: attachment.content.toString('base64'), content_type: attachment.contentType })),
    };
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/emails`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${stringField(request.config.credentials, 'api_key')}`, 'idempotency-key': request.idempotencyKey },
      body: JSON.stringify(body),
    });
    if (!isResponse(response)) return response;
    return response.status === 200 ? sent(String(parseJson(response.body).id ?? '')) : failureOf(this.vendor, response);
  }
}
