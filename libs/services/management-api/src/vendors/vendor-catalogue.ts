import { FieldError, HeraldError } from '@herald/contracts';
import {
  CredentialField,
  CredentialValue,
  Credentials,
  base64urlBytes,
  checkCredential,
  choice,
  document,
  emailAddress,
  flag,
  hostname,
  identifier,
  integer,
  matches,
  optional,
  privateKeyPem,
  secret,
  serviceAccountJson,
  setting,
  smsSender,
  uuid,
  vapidKeysMatch,
  vapidSubject,
} from './credential-fields';

export const CHANNELS = ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A vendor the dispatchers can deliver a channel through, and what it must be configured with. */
export interface VendorSpec {
  readonly channel: Channel;
  readonly vendor: string;
  readonly credentials: Readonly<Record<string, CredentialField>>;
  /**
   * The vendor API the dispatcher calls unless the configuration's `base_url` overrides it
   * (tests point it at a local server). Null where there is no fixed API: SMTP is addressed
   * by its host and port, web push by each subscription's endpoint, the inbox is Herald's own.
   */
  defaultBaseUrl(credentials: Credentials): string | null;
  /** Rules across fields, as messages by field name. */
  crossCheck?(credentials: Credentials): readonly FieldError[];
}

const fixed =
  (url: string | null) =>
  (): string | null =>
    url;

/**
 * Every email vendor's switches of Herald's own engagement tracking (HERALD_PUBLIC_URL):
 * `false` sends the workspace's emails through this vendor without the open pixel or
 * without tracked links (README, Engagement tracking and unsubscribe).
 */
const TRACKING_SWITCHES = { track_opens: optional(flag()), track_clicks: optional(flag()) };

/** Per channel, the vendors the dispatchers implement. */
export const VENDOR_CATALOGUE: readonly VendorSpec[] = [
  {
    channel: 'email',
    vendor: 'smtp',
    credentials: {
      host: setting(hostname),
      port: integer(1, 65535),
      /** true: TLS from the first byte (465); false: STARTTLS when offered (587, 25). */
      secure: flag(),
      username: identifier(),
      password: secret(),
      from: setting(emailAddress),
      ...TRACKING_SWITCHES,
    },
    defaultBaseUrl: fixed(null),
  },
  // The optional webhook_* fields verify the vendor's status callbacks (docs/reference.md, Vendor status callbacks).
  { channel: 'email', vendor: 'sendgrid', credentials: { api_key: identifier(), webhook_verification_key: optional(identifier()), ...TRACKING_SWITCHES }, defaultBaseUrl: fixed('https://api.sendgrid.com') },
  {
    channel: 'email',
    vendor: 'ses',
    credentials: {
      access_key_id: identifier(matches(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key ID (16 to 128 capital letters and digits)')),
      secret_access_key: secret(),
      region: setting(matches(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as us-east-1')),
      sns_topic_arn: optional(identifier(matches(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'must be an SNS topic ARN'))),
      ...TRACKING_SWITCHES,
    },
    defaultBaseUrl: (credentials) => `https://email.${String(credentials.region)}.amazonaws.com`,
  },
  {
    channel: 'email',
    vendor: 'mailgun',
    credentials: { api_key: identifier(), domain: setting(hostname), region: optional(choice(['us', 'eu'])), webhook_signing_key: optional(secret()), ...TRACKING_SWITCHES },
    // Mailgun keeps EU domains on a separate API host; a domain of one region is unknown to the other.
    defaultBaseUrl: (credentials) => (credentials.region === 'eu' ? 'https://api.eu.mailgun.net' : 'https://api.mailgun.net'),
  },
  { channel: 'email', vendor: 'postmark', credentials: { server_token: identifier(), webhook_username: optional(identifier()), webhook_password: optional(secret()), ...TRACKING_SWITCHES }, defaultBaseUrl: fixed('https://api.postmarkapp.com') },
  { channel: 'email', vendor: 'resend', credentials: { api_key: identifier(), webhook_secret: optional(secret()), ...TRACKING_SWITCHES }, defaultBaseUrl: fixed('https://api.resend.com') },
  {
    channel: 'sms',
    vendor: 'twilio',
    credentials: {
      account_sid: identifier(matches(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC and 32 hexadecimal digits)')),
      auth_token: secret(),
      // Twilio also sends from a messaging service (MG…), which picks the number itself.
      from: setting((value) => (/^MG[0-9a-fA-F]{32}$/.test(value) ? undefined : smsSender(value))),
    },
    defaultBaseUrl: fixed('https://api.twilio.com'),
  },
  {
    channel: 'sms',
    vendor: 'vonage',
    credentials: {
      api_key: identifier(),
      api_secret: secret(),
      from: setting(smsSender),
      signature_secret: optional(secret()),
      signature_method: optional(choice(['md5hash', 'md5', 'sha1', 'sha256', 'sha512'])),
    },
    defaultBaseUrl: fixed('https://rest.nexmo.com'),
  },
  {
    channel: 'sms',
    vendor: 'plivo',
    credentials: { auth_id: identifier(), auth_token: secret(), from: setting(smsSender) },
    defaultBaseUrl: fixed('https://api.plivo.com'),
  },
  {
    channel: 'whatsapp',
    vendor: 'meta_cloud',
    credentials: {
      access_token: identifier(),
      phone_number_id: setting(matches(/^\d{5,20}$/, 'must be the numeric phone number ID')),
      app_secret: optional(secret()),
      verify_token: optional(secret()),
    },
    defaultBaseUrl: fixed('https://graph.facebook.com'),
  },
  {
    channel: 'androidpush',
    vendor: 'fcm',
    // The key file's own token_uri is where the dispatcher gets its OAuth token, so a test can point that at a local server too.
    credentials: { service_account_json: document(serviceAccountJson) },
    defaultBaseUrl: fixed('https://fcm.googleapis.com'),
  },
  {
    channel: 'iospush',
    vendor: 'apns',
    credentials: {
      team_id: setting(matches(/^[A-Z0-9]{10}$/, 'must be the 10-character Apple team ID')),
      key_id: setting(matches(/^[A-Z0-9]{10}$/, 'must be the 10-character key ID')),
      private_key_p8: document(privateKeyPem('ec')),
      bundle_id: setting(matches(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'must be a bundle ID such as com.example.app')),
      environment: choice(['production', 'sandbox']),
    },
    // Device tokens of development builds are only known to the sandbox.
    defaultBaseUrl: (credentials) =>
      credentials.environment === 'sandbox' ? 'https://api.sandbox.push.apple.com' : 'https://api.push.apple.com',
  },
  {
    channel: 'webpush',
    vendor: 'vapid',
    credentials: {
      public_key: setting(base64urlBytes(65, 'a base64url P-256 public key (65 bytes, uncompressed)')),
      private_key: secret(base64urlBytes(32, 'a base64url P-256 private key (32 bytes)')),
      subject: setting(vapidSubject),
    },
    defaultBaseUrl: fixed(null),
    // A mismatched pair is accepted by every check above and refused by every push service.
    crossCheck: (credentials) =>
      typeof credentials.public_key === 'string' &&
      typeof credentials.private_key === 'string' &&
      !vapidKeysMatch(credentials.public_key, credentials.private_key)
        ? [{ path: 'private_key', message: 'does not belong to public_key' }]
        : [],
  },
  {
    channel: 'slack',
    vendor: 'slack',
    // Recipients usually carry their own access token (per installed workspace); a bot token is the fallback.
    credentials: { bot_token: optional(identifier(matches(/^xox[a-z]-/, 'must be a Slack token (xoxb-…)'))) },
    defaultBaseUrl: fixed('https://slack.com/api'),
  },
  {
    channel: 'ms_teams',
    vendor: 'ms_teams',
    // Without a bot, recipients carry incoming webhook URLs; a bot needs both its ID and password.
    credentials: { app_id: optional(identifier(uuid)), app_password: optional(secret()) },
    defaultBaseUrl: fixed('https://smba.trafficmanager.net/teams'),
    crossCheck: (credentials) => {
      if ((credentials.app_id === undefined) === (credentials.app_password === undefined)) return [];
      const missing = credentials.app_id === undefined ? 'app_id' : 'app_password';
      return [{ path: missing, message: 'is required together with ' + (missing === 'app_id' ? 'app_password' : 'app_id') }];
    },
  },
  { channel: 'inbox', vendor: 'herald_inbox', credentials: {}, defaultBaseUrl: fixed(null) },
];

export function isChannel(value: string): value is Channel {
  return (CHANNELS as readonly string[]).includes(value);
}

export function vendorsOf(channel: Channel): readonly VendorSpec[] {
  return VENDOR_CATALOGUE.filter((spec) => spec.channel === channel);
}

/**
 * The spec of `{channel}/{vendor}` of a request path. An unknown pair names a resource
 * that cannot exist, so it is 404 whatever the method (as an unknown workspace is),
 * with the choices in the message.
 */
export function vendorSpecOf(channel: string, vendor: string): VendorSpec {
  if (!isChannel(channel)) throw HeraldError.notFound(`unknown channel '${channel}' (channels: ${CHANNELS.join(', ')})`);
  const spec = vendorsOf(channel).find((candidate) => candidate.vendor === vendor);
  if (!spec) {
    throw HeraldError.notFound(`channel '${channel}' has no vendor '${vendor}' (vendors: ${vendorsOf(channel).map((s) => s.vendor).join(', ')})`);
  }
  return spec;
}

/**
 * Checks a `credentials` object against the vendor's fields; errors are reported by
 * path (`credentials.api_key`). Unknown fields are refused rather than ignored: they are
 * sealed and masked once stored, so a misspelt field could never be seen again.
 */
export function validateCredentials(spec: VendorSpec, raw: Readonly<Record<string, unknown>>): { credentials: Credentials; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const credentials: Record<string, CredentialValue> = {};
  const path = (name: string): string => `credentials.${name}`;
  for (const [name, field] of Object.entries(spec.credentials)) {
    const value = raw[name];
    if (value === undefined || value === null) {
      if (!field.optional) errors.push({ path: path(name), message: 'is required' });
      continue;
    }
    const problem = checkCredential(field, value);
    if (problem) errors.push({ path: path(name), message: problem });
    else credentials[name] = value as CredentialValue;
  }
  const known = Object.keys(spec.credentials);
  for (const name of Object.keys(raw)) {
    if (!known.includes(name)) {
      const expected = known.length > 0 ? `expected: ${known.join(', ')}` : 'it takes none';
      errors.push({ path: path(name), message: `is not a credential of ${spec.vendor} (${expected})` });
    }
  }
  if (errors.length === 0) {
    for (const error of spec.crossCheck?.(credentials) ?? []) errors.push({ path: path(error.path), message: error.message });
  }
  return { credentials, errors };
}
