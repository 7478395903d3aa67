import { createHash, createHmac, createSign, generateKeyPairSync, sign } from 'node:crypto';
import { twilioSignature, vonageSignature } from '../callback-signatures';

/**
 * Each vendor's status callback as its documentation shows it (ids and addresses
 * replaced by the test's), and signed as the vendor signs it. Shared by the unit specs of
 * the signature checks and mappings and by the integration spec that posts them.
 */

/** SendGrid's event webhook sample: one event per kind Herald records. */
export const sendgridBody = (sgMessageId: string, email: string): unknown[] => [
  { email, timestamp: 1513299569, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'processed', category: 'cat facts', sg_event_id: 'rbtnWrG1DVDGGGFHFyun0A==', sg_message_id: `${sgMessageId}.filter0001.16648.5515E0B88.0` },
  { email, timestamp: 1513299569, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'delivered', category: 'cat facts', sg_event_id: 'rWVYmVk90MjZJ9iohOBa3w==', sg_message_id: `${sgMessageId}.filter0001.16648.5515E0B88.0`, response: '250 OK' },
  { email, timestamp: 1513299569, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'bounce', category: 'cat facts', sg_event_id: '6g4ZI7SA-xmRDv57GoPIPw==', sg_message_id: `${sgMessageId}.filter0001.16648.5515E0B88.0`, reason: '500 unknown recipient', status: '5.0.0', type: 'bounce' },
];

/** A P-256 key pair as SendGrid's signed event webhook uses: the verification key is the base64 DER of the public key. */
export function sendgridKeys(): { verificationKey: string; sign(timestamp: string, body: Buffer): string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    verificationKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    sign: (timestamp, body) => sign('sha256', Buffer.concat([Buffer.from(timestamp), body]), privateKey).toString('base64'),
  };
}

/** Mailgun's `failed` (permanent) webhook sample. */
export function mailgunBody(messageId: string, recipient: string, signingKey: string, event = 'failed'): Record<string, unknown> {
  const timestamp = '1529006854';
  const token = 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0';
  return {
    signature: { timestamp, token, signature: createHmac('sha256', signingKey).update(timestamp + token).digest('hex') },
    'event-data': {
      event,
      ...(event === 'failed' ? { severity: 'permanent', reason: 'suppress-bounce' } : {}),
      id: 'G9Bn5sl1TC6nu79C8C0bwg',
      timestamp: 1521233195.375624,
      recipient,
      'log-level': 'error',
      message: { headers: { to: recipient, 'message-id': messageId, from: 'Alice <alice@example.com>', subject: 'Test permanent_fail webhook' }, attachments: [], size: 111 },
      'delivery-status': { 'attempt-no': 1, message: '', code: 605, description: 'Not delivering to previously bounced address', 'session-seconds': 0.0 },
      flags: { 'is-routed': false, 'is-authenticated': true, 'is-system-test': false, 'is-test-mode': false },
    },
  };
}

/** Postmark's Bounce webhook sample (a hard bounce). */
export const postmarkBounce = (messageId: string, email: string): Record<string, unknown> => ({
  RecordType: 'Bounce',
  ID: 4323372036854775807,
  Type: 'HardBounce',
  TypeCode: 1,
  Name: 'Hard bounce',
  Tag: 'Test',
  MessageID: messageId,
  ServerID: 23,
  MessageStream: 'outbound',
  Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
  Details: 'Test bounce details',
  Email: email,
  From: 'sender@example.com',
  BouncedAt: '2019-11-05T16:33:54.9070259Z',
  DumpAvailable: true,
  Inactive: true,
  CanActivate: true,
  Subject: 'Test subject',
  Content: '<Full dump of bounce>',
});

/** Postmark's Open webhook sample. */
export const postmarkOpen = (messageId: string, email: string): Record<string, unknown> => ({
  RecordType: 'Open',
  MessageStream: 'outbound',
  FirstOpen: true,
  Client: { Name: 'Chrome 35.0.1916.153', Company: 'Google', Family: 'Chrome' },
  OS: { Name: 'OS X 10.7 Lion', Company: 'Apple Computer, Inc.', Family: 'OS X 10' },
  Platform: 'WebMail',
  UserAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_7_5)',
  ReadSeconds: 5,
  Geo: {},
  MessageID: messageId,
  Metadata: { a_key: 'a_value' },
  ReceivedAt: '2019-11-05T16:33:54.9070259Z',
  Tag: 'welcome-email',
  Recipient: email,
});

/** An SES bounce event (configuration set), as SNS carries it in `Message`. */
export const sesBounce = (messageId: string, email: string): Record<string, unknown> => ({
  eventType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [{ emailAddress: email, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
    timestamp: '2017-08-05T00:41:02.669Z',
    feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
    reportingMTA: 'dsn; mta.example.com',
  },
  mail: {
    timestamp: '2017-08-05T00:40:02.012Z',
    source: 'Sender Name <sender@example.com>',
    sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/sender@example.com',
    sendingAccountId: '123456789012',
    messageId,
    destination: [email],
    headersTruncated: false,
    commonHeaders: { from: ['Sender Name <sender@example.com>'], to: [email], messageId: '<not-ours@example.com>', subject: 'Message sent from Amazon SES' },
  },
});

/** An RSA key SNS would sign with, and an SNS envelope of `message` signed with it (SignatureVersion 2). */
export function snsSigner(): { publicKeyPem: string; envelope(topicArn: string, type: string, message: string, extra?: Record<string, string>): Record<string, string> } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    envelope: (topicArn, type, message, extra = {}) => {
      const fields: Record<string, string> = {
        Type: type,
        MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
        TopicArn: topicArn,
        Message: message,
        Timestamp: '2012-05-02T00:54:06.655Z',
        SignatureVersion: '2',
        SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
        ...extra,
      };
      const signed =
        type === 'Notification'
          ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
          : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
      const text = signed.filter((name) => fields[name] !== undefined).map((name) => `${name}\n${fields[name]}\n`).join('');
      return { ...fields, Signature: createSign('RSA-SHA256').update(text).sign(privateKey).toString('base64') };
    },
  };
}

/** Resend's email.bounced sample, and svix headers signing it. */
export const resendBounce = (emailId: string, email: string): Record<string, unknown> => ({
  type: 'email.bounced',
  created_at: '2024-11-22T23:41:12.126Z',
  data: {
    broadcast_id: '8b146471-e88e-4322-86af-016cd36fd216',
    created_at: '2024-11-22T23:41:11.894719+00:00',
    email_id: emailId,
    from: 'Acme <onboarding@resend.dev>',
    to: [email],
    subject: 'Sending this example',
    bounce: { message: "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.", subType: 'Suppressed', type: 'Permanent' },
  },
});

export function svixHeaders(secret: string, body: string, now: Date, id = 'msg_p5jXN8AQM9LWM0D4loKWxJek'): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signature = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'svix-id': id, 'svix-timestamp': timestamp, 'svix-signature': `v1,${signature}` };
}

/** Twilio's status callback parameters for an undelivered SMS (30005: unknown destination handset). */
export const twilioUndelivered = (sid: string, to: string): Record<string, string> => ({
  AccountSid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  ApiVersion: '2010-04-01',
  ErrorCode: '30005',
  From: '+15017122661',
  MessageSid: sid,
  MessageStatus: 'undelivered',
  SmsSid: sid,
  SmsStatus: 'undelivered',
  To: to,
});

export const twilioSigned = (url: string, params: Record<string, string>, authToken: string): string => twilioSignature(url, params, authToken);

/** Vonage's SMS delivery receipt (err-code 1: unknown subscriber), signed with `sig` (md5hash). */
export function vonageReceipt(messageId: string, msisdn: string, secret: string, status = 'failed'): Record<string, string> {
  const params: Record<string, string> = {
    msisdn,
    to: 'Herald',
    'network-code': '12345',
    messageId,
    price: '0.03330000',
    status,
    scts: '2001011400',
    'err-code': status === 'delivered' ? '0' : '1',
    'api-key': 'abcd1234',
    'message-timestamp': '2020-01-01 12:00:00',
    timestamp: '1577880000',
    nonce: 'b3a34a74-1b8a-4bcc-94a8-a0bb2c4f0f0e',
  };
  return { ...params, sig: vonageSignature(params, secret, 'md5hash') };
}

/** Meta's WhatsApp status webhook: a `failed` status of a message (131026: undeliverable). */
export const metaFailed = (wamid: string, recipient: string): Record<string, unknown> => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            statuses: [
              {
                id: wamid,
                status: 'failed',
                timestamp: '1750263773',
                recipient_id: recipient,
                errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
});

export const metaSignature = (body: string, appSecret: string): string => `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

/** md5, for a spec that checks Vonage's md5hash by hand. */
export const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** Plivo's message status callback (its documented attributes), for an SMS undelivered with `errorCode` (50: invalid destination number). */
export const plivoUndelivered = (messageUuid: string, to: string, errorCode = '50'): Record<string, string> => ({
  From: '14155550100',
  To: to,
  Type: 'sms',
  MessageUUID: messageUuid,
  ParentMessageUUID: messageUuid,
  Status: 'undelivered',
  ErrorCode: errorCode,
  Units: '1',
  TotalRate: '0.0050',
  TotalAmount: '0.0050',
  MCC: '310',
  MNC: '004',
  Sequence: '3',
  MessageTime: '2024-01-01 12:00:00.000000',
  QueuedTime: '2024-01-01 12:00:00.100000',
  SentTime: '2024-01-01 12:00:01.000000',
  DeliveryReportTime: '2024-01-01 12:00:05.000000',
});

/**
 * The headers Plivo signs a callback with (V3), built as Plivo's Node SDK
 * (`utils/v3Security.js`) rebuilds the signed text: written apart from the check it tests.
 */
export function plivoSigned(method: 'GET' | 'POST', url: string, params: Record<string, string>, authToken: string, nonce = '12345678901234567890'): Record<string, string> {
  const { origin, pathname, searchParams } = new URL(url);
  const byName = new Map<string, string[]>();
  for (const [name, value] of searchParams) byName.set(name, [...(byName.get(name) ?? []), value]);
  const query = [...byName.keys()]
    .sort()
    .flatMap((name) => (byName.get(name) ?? []).sort().map((value) => `${name}=${value}`))
    .join('&');
  const hasPost = method === 'POST' && Object.keys(params).length > 0;
  let signed = origin + pathname;
  if (query || hasPost) signed += `?${query}`;
  if (query && hasPost) signed += '.';
  if (hasPost) signed += Object.keys(params).sort().map((name) => name + params[name]).join('');
  const signature = createHmac('sha256', authToken).update(`${signed}.${nonce}`).digest('base64');
  return { 'x-plivo-signature-v3': signature, 'x-plivo-signature-v3-nonce': nonce };
}
