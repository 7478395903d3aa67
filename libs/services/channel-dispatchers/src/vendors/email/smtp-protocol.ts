import { StringDecoder } from 'node:string_decoder';

/**
 * The pure part of Herald's SMTP client (RFC 5321): reading replies, the server's EHLO
 * capabilities, the commands of a mail transaction, what the replies to them decide,
 * the message's DATA block. The socket, timers and pool live in smtp-client.ts.
 */

/** One reply: its code and its text lines (a multi-line reply has several). */
export interface SmtpReply {
  readonly code: number;
  readonly lines: readonly string[];
}

/** The reply as one line of text, for errors and logs (`451 try again later`). */
export function replyText(reply: SmtpReply): string {
  return `${reply.code} ${reply.lines.join(' ')}`.trim();
}

const isPositive = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;

/**
 * A failure the SMTP vendor classifies: `code` names the kind (as nodemailer's did:
 * ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE, EPROTOCOL, ETLS), `responseCode`
 * the server's reply when there was one (4xx retryable, 5xx permanent).
 */
export class SmtpError extends Error {
  readonly responseCode?: number;
  readonly response?: string;

  constructor(
    message: string,
    readonly code: string,
    reply?: SmtpReply,
  ) {
    super(reply ? `${message}: ${replyText(reply)}` : message);
    this.name = 'SmtpError';
    if (reply) {
      this.responseCode = reply.code;
      this.response = replyText(reply);
    }
  }
}

/** Splits the bytes a server sends into replies; a reply may span chunks and lines (`250-...` then `250 ...`). */
export class ReplyReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private lines: string[] = [];

  /** The replies completed by `chunk`, in order; throws on a line that is not a reply. */
  push(chunk: Buffer): SmtpReply[] {
    this.pending += this.decoder.write(chunk);
    const replies: SmtpReply[] = [];
    let end: number;
    while ((end = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, end).replace(/\r$/, '');
      this.pending = this.pending.slice(end + 1);
      const code = Number(line.slice(0, 3));
      if (!/^\d{3}(?:[ -]|$)/.test(line)) throw new SmtpError(`invalid reply line ${JSON.stringify(line.slice(0, 100))}`, 'EPROTOCOL');
      this.lines.push(line.slice(4));
      if (line[3] !== '-') {
        replies.push({ code, lines: this.lines });
        this.lines = [];
      }
    }
    return replies;
  }
}

/** What the server said it supports in its EHLO reply (RFC 5321 4.1.1.1, RFC 2920, 1870, 6152, 3207, 4954, 6531). */
export interface SmtpCapabilities {
  readonly pipelining: boolean;
  readonly startTls: boolean;
  readonly eightBitMime: boolean;
  readonly smtpUtf8: boolean;
  /** SIZE's limit in bytes, 0 when the server names none; undefined without SIZE. */
  readonly maxSize?: number;
  /** SASL mechanisms, upper case, in the server's order. */
  readonly auth: readonly string[];
}

export const NO_CAPABILITIES: SmtpCapabilities = { pipelining: false, startTls: false, eightBitMime: false, smtpUtf8: false, auth: [] };

export function capabilitiesOf(ehlo: SmtpReply): SmtpCapabilities {
  const keywords = new Map<string, string[]>();
  // The first line greets; each further line is a keyword and its parameters (`AUTH=PLAIN` is an old form of `AUTH PLAIN`).
  for (const line of ehlo.lines.slice(1)) {
    const [keyword, ...parameters] = line.trim().toUpperCase().split(/[\s=]+/);
    if (keyword) keywords.set(keyword, [...(keywords.get(keyword) ?? []), ...parameters]);
  }
  const size = keywords.get('SIZE');
  return {
    pipelining: keywords.has('PIPELINING'),
    startTls: keywords.has('STARTTLS'),
    eightBitMime: keywords.has('8BITMIME'),
    smtpUtf8: keywords.has('SMTPUTF8'),
    maxSize: size ? Number(size[0] ?? 0) || 0 : undefined,
    auth: keywords.get('AUTH') ?? [],
  };
}

/** The SASL mechanism to use: PLAIN, else LOGIN (what the vendor supports), or none the server offers. */
export function authMechanismFor(capabilities: SmtpCapabilities): 'PLAIN' | 'LOGIN' | undefined {
  if (capabilities.auth.includes('PLAIN')) return 'PLAIN';
  if (capabilities.auth.includes('LOGIN')) return 'LOGIN';
  return undefined;
}

export interface SmtpEnvelope {
  readonly from: string;
  readonly to: readonly string[];
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The commands of one transaction up to DATA: MAIL FROM (with SIZE, BODY=8BITMIME and
 * SMTPUTF8 where the server offers them and the message needs them), a RCPT TO per
 * recipient, DATA. Throws EENVELOPE for an address that would break the command line.
 */
export function transactionCommands(envelope: SmtpEnvelope, message: Buffer, capabilities: SmtpCapabilities): string[] {
  if (envelope.to.length === 0) throw new SmtpError('no recipients', 'EENVELOPE');
  for (const address of [envelope.from, ...envelope.to]) {
    if (/[\r\n<>]/.test(address)) throw new SmtpError(`invalid address ${JSON.stringify(address)}`, 'EENVELOPE');
  }
  if (capabilities.maxSize && message.length > capabilities.maxSize) throw new SmtpError(`message of ${message.length} bytes exceeds the server's SIZE ${capabilities.maxSize}`, 'EMESSAGE', { code: 552, lines: ['message size exceeds fixed maximum message size'] });
  const parameters: string[] = [];
  if (capabilities.maxSize !== undefined) parameters.push(`SIZE=${message.length}`);
  if (capabilities.eightBitMime && message.some((byte) => byte > 0x7f)) parameters.push('BODY=8BITMIME');
  if (capabilities.smtpUtf8 && [envelope.from, ...envelope.to].some((address) => NON_ASCII.test(address))) parameters.push('SMTPUTF8');
  return [`MAIL FROM:<${envelope.from}>${parameters.map((parameter) => ` ${parameter}`).join('')}`, ...envelope.to.map((to) => `RCPT TO:<${to}>`), 'DATA'];
}

export interface RecipientRejection {
  readonly recipient: string;
  readonly response: string;
  readonly responseCode: number;
}

/** What the replies to MAIL, the RCPTs and DATA decide. */
export type EnvelopeDecision =
  | { readonly kind: 'send_data'; readonly accepted: readonly string[]; readonly rejected: readonly RecipientRejection[] }
  /** Stop here, then RSET (unless `abandon`: the server went into DATA anyway, so only closing the connection ends it). */
  | { readonly kind: 'failed'; readonly error: SmtpError; readonly abandon: boolean };

/**
 * Decides a transaction from the replies to its commands, in order: MAIL, one per RCPT,
 * then DATA's (absent when lock-step stopped before DATA). Recipients are refused one by
 * one; the message goes to those accepted; with none accepted it fails with the last
 * refusal's reply (4xx or 5xx decides whether a retry may help).
 */
export function decideEnvelope(recipients: readonly string[], replies: readonly SmtpReply[]): EnvelopeDecision {
  const [mail, ...rest] = replies;
  const data = rest.length > recipients.length ? rest[recipients.length] : undefined;
  const abandon = data?.code === 354;
  if (!mail || !isPositive(mail)) return { kind: 'failed', error: new SmtpError('MAIL FROM refused', 'EENVELOPE', mail), abandon };
  const accepted: string[] = [];
  const rejected: RecipientRejection[] = [];
  let lastRefusal: SmtpReply | undefined;
  recipients.forEach((recipient, index) => {
    const reply = rest[index];
    if (reply && isPositive(reply)) accepted.push(recipient);
    else if (reply) {
      lastRefusal = reply;
      rejected.push({ recipient, response: replyText(reply), responseCode: reply.code });
    }
  });
  if (accepted.length === 0) return { kind: 'failed', error: new SmtpError('all recipients were refused', 'EENVELOPE', lastRefusal), abandon };
  if (!data || data.code !== 354) return { kind: 'failed', error: new SmtpError('DATA refused', 'EENVELOPE', data), abandon: false };
  return { kind: 'send_data', accepted, rejected };
}

const DOT = 0x2e;
const LF = 0x0a;
const CR = 0x0d;
const TERMINATOR = Buffer.from('.\r\n');
const CRLF_TERMINATOR = Buffer.from('\r\n.\r\n');

/**
 * The message as DATA's content (RFC 5321 4.5.2): a `.` at the start of a line doubled,
 * a bare LF made CRLF, then the closing `.` line. One buffer, so the message is one write.
 */
export function dataBlock(message: Buffer): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = 0; index < message.length; index++) {
    const byte = message[index];
    if (byte === DOT && (index === 0 || message[index - 1] === LF)) {
      parts.push(message.subarray(start, index + 1));
      start = index; // the dot is written twice: once above, once starting the next part
    } else if (byte === LF && (index === 0 || message[index - 1] !== CR)) {
      parts.push(message.subarray(start, index), Buffer.from('\r\n'));
      start = index + 1;
    }
  }
  parts.push(message.subarray(start));
  const last = message.length > 0 ? message[message.length - 1] : LF;
  parts.push(last === LF ? TERMINATOR : last === CR ? Buffer.from('\n.\r\n') : CRLF_TERMINATOR);
  return Buffer.concat(parts);
}
