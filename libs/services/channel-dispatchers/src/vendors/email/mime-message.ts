import { randomBytes } from 'node:crypto';
import * as base64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import { SmtpEnvelope } from './smtp-protocol';

export interface EmailMessage {
  readonly from: string;
  readonly to: string;
  readonly replyTo?: string;
  readonly subject: string;
  readonly text?: string;
  readonly html?: string;
  /** `<id@domain>` */
  readonly messageId: string;
  readonly attachments?: ReadonlyArray<{ readonly filename: string; readonly contentType: string; readonly content: Buffer }>;
  /** Further headers (`List-Unsubscribe`), written as given on one line each. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ComposedMessage {
  readonly envelope: SmtpEnvelope;
  readonly bytes: Buffer;
}

/**
 * The RFC 5322 message of an email, as one buffer. nodemailer's composer builds it
 * through a tree of streams, about as much CPU as the rest of a delivery (270-460 µs a
 * message under load; docs/architecture.md, Channel dispatchers), for what is mostly the
 * same shape: a text part, an HTML part, a handful of
 * headers. So that shape is written here directly, with nodemailer's own encoders
 * (encoded words for a header, quoted-printable or base64 for a part that is not plain
 * 7-bit, chosen as nodemailer chooses) and the address headers nodemailer formats, kept
 * per distinct value (a sender repeats). A message with attachments is composed by
 * nodemailer as before.
 */
export async function composeMessage(mail: EmailMessage, now = new Date()): Promise<ComposedMessage> {
  if (mail.attachments && mail.attachments.length > 0) return composeWithNodemailer(mail, now);
  const from = addressHeader('From', mail.from);
  const to = SIMPLE_ADDRESS.test(mail.to) ? { line: `To: ${mail.to}`, addresses: [mail.to] } : addressHeader('To', mail.to);
  const replyTo = mail.replyTo ? addressHeader('Reply-To', mail.replyTo) : undefined;
  const headers = [
    from.line,
    to.line,
    ...(replyTo ? [replyTo.line] : []),
    mimeFuncs.foldLines(`Subject: ${mimeFuncs.encodeWords(mail.subject.replace(/\r?\n|\r/g, ' '), textEncodingOf(mail.subject), 52)}`, 76),
    `Message-ID: ${mail.messageId.replace(/\r?\n|\r/g, ' ')}`,
    ...extraHeaderLines(mail.headers),
    `Date: ${now.toUTCString().replace(/GMT/, '+0000')}`,
    'MIME-Version: 1.0',
  ];
  const parts = [...(mail.text !== undefined ? [textPart('text/plain', mail.text)] : []), ...(mail.html !== undefined ? [textPart('text/html', mail.html)] : [])];
  let body: string;
  if (parts.length === 0) {
    body = `${headers.join('\r\n')}\r\nContent-Type: text/plain\r\n\r\n`;
  } else if (parts.length === 1) {
    // nodemailer moves only Content-Type after MIME-Version, and ends the message with a line break.
    const [part] = parts;
    const date = headers.length - 2;
    body = `${[...headers.slice(0, date + 1), part.transferEncoding, ...headers.slice(date + 1), part.contentType].join('\r\n')}\r\n\r\n${part.content}`;
    if (!body.endsWith('\n')) body += '\r\n';
  } else {
    const boundary = nextBoundary();
    const alternatives = parts.map((part) => `--${boundary}\r\n${part.contentType}\r\n${part.transferEncoding}\r\n\r\n${part.content}`);
    body = `${headers.join('\r\n')}\r\nContent-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n\r\n${alternatives.join('\r\n')}\r\n--${boundary}--\r\n`;
  }
  return { envelope: { from: from.addresses[0] ?? '', to: to.addresses }, bytes: Buffer.from(body, 'utf8') };
}

/**
 * `Name: value` per extra header. Unfolded: a List-Unsubscribe URL must not be broken, and
 * stays far under RFC 5322's 998 characters. A name that is not a header name, or a value
 * with a line break, is dropped rather than let inject a header.
 */
export function extraHeaderLines(headers: Readonly<Record<string, string>> | undefined): string[] {
  if (!headers) return [];
  return Object.entries(headers).flatMap(([name, value]) => (/^[A-Za-z0-9-]{1,76}$/.test(name) && !/[\r\n]/.test(value) && value.length <= 900 ? [`${name}: ${value}`] : []));
}

/** An address nodemailer writes as it is, with no name to encode. */
const SIMPLE_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

interface TextPart {
  readonly contentType: string;
  readonly transferEncoding: string;
  readonly content: string;
}

/** A text part: its two headers and its content, in the transfer encoding nodemailer would pick. */
function textPart(contentType: string, content: string): TextPart {
  const part = (encoding: string, encoded: string): TextPart => ({ contentType: `Content-Type: ${contentType}; charset=utf-8`, transferEncoding: `Content-Transfer-Encoding: ${encoding}`, content: encoded });
  if (mimeFuncs.isPlainText(content) && !mimeFuncs.hasLongerLines(content, 76)) return part('7bit', content);
  if (textEncodingOf(content) === 'Q') return part('quoted-printable', qp.wrap(qp.encode(content), 76));
  return part('base64', base64.wrap(base64.encode(Buffer.from(content, 'utf8')), 76));
}

/** nodemailer's choice: quoted-printable where Latin letters outnumber the rest, else base64. */
function textEncodingOf(value: string): 'Q' | 'B' {
  const nonLatin = (value.match(/[\x00-\x08\x0B\x0C\x0E-\x1F\u0080-\uFFFF]/g) ?? []).length;
  const latin = (value.match(/[a-z]/gi) ?? []).length;
  return nonLatin < latin ? 'Q' : 'B';
}

const BOUNDARY_PREFIX = `--_Herald-${randomBytes(8).toString('hex')}-`;
let boundaries = 0;

/** Unique per message: a per-process random part (no text contains it by chance) and a counter. */
function nextBoundary(): string {
  boundaries = (boundaries + 1) % Number.MAX_SAFE_INTEGER;
  return `${BOUNDARY_PREFIX}${boundaries.toString(36)}`;
}

interface AddressHeader {
  readonly line: string;
  /** The addresses it names, for the envelope. */
  readonly addresses: string[];
}

const addressHeaders = new Map<string, AddressHeader>();
const ADDRESS_HEADERS_KEPT = 10_000;

/** The header as nodemailer writes it (names quoted or encoded, folded), kept per value. */
function addressHeader(name: 'From' | 'To' | 'Reply-To', value: string): AddressHeader {
  const key = `${name}\n${value}`;
  const known = addressHeaders.get(key);
  if (known) return known;
  const node = new MimeNode('text/plain');
  node.setHeader(name, value);
  const prefix = `${name}: `;
  const line = node
    .buildHeaders()
    .split(/\r\n(?! )/)
    .find((header) => header.startsWith(prefix));
  const envelope = node.getEnvelope();
  const header = { line: line ?? `${prefix}`, addresses: name === 'From' ? (envelope.from ? [envelope.from] : []) : envelope.to };
  if (addressHeaders.size >= ADDRESS_HEADERS_KEPT) addressHeaders.clear();
  addressHeaders.set(key, header);
  return header;
}

async function composeWithNodemailer(mail: EmailMessage, now: Date): Promise<ComposedMessage> {
  const node = new MailComposer({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    replyTo: mail.replyTo,
    messageId: mail.messageId,
    date: now,
    attachments: mail.attachments?.map((attachment) => ({ filename: attachment.filename, contentType: attachment.contentType, content: attachment.content })),
    // Prepared: written as given, like the composer above writes them.
    headers: Object.fromEntries(
      extraHeaderLines(mail.headers).map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), { prepared: true, value: line.slice(colon + 2) }];
      }),
    ),
  }).compile();
  const envelope = node.getEnvelope();
  return { envelope: { from: envelope.from || '', to: envelope.to }, bytes: await node.build() };
}
