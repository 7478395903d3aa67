import { VendorConfig } from './vendor.port';

/** The credential fields each vendor's status callbacks are verified with (optional in the vendor catalogue; callbacks are refused without them). */
export const CALLBACK_CREDENTIALS: Readonly<Record<string, readonly string[]>> = {
  'email/sendgrid': ['webhook_verification_key'],
  'email/ses': ['sns_topic_arn'],
  'email/mailgun': ['webhook_signing_key'],
  'email/postmark': ['webhook_username', 'webhook_password'],
  'email/resend': ['webhook_secret'],
  'sms/twilio': ['auth_token'],
  'sms/vonage': ['signature_secret'],
  'sms/plivo': ['auth_token'],
  'whatsapp/meta_cloud': ['app_secret', 'verify_token'],
};

/** The callback credentials a configuration lacks (all of them for a vendor without callbacks). */
export function missingCallbackCredentials(config: Pick<VendorConfig, 'channel' | 'vendor' | 'credentials'>): readonly string[] | undefined {
  const needed = CALLBACK_CREDENTIALS[`${config.channel}/${config.vendor}`];
  if (!needed) return undefined;
  return needed.filter((field) => typeof config.credentials[field] !== 'string' || config.credentials[field] === '');
}

/**
 * The status callback URL a send names for its message, where the vendor takes one per
 * message (Twilio's `StatusCallback`, Vonage's `callback`, Plivo's `url`): the public
 * callback route of the vendor configuration under HERALD_PUBLIC_URL. None without a
 * public URL, or while the configuration lacks what verifies the callbacks (they would
 * only be refused); the vendor's account-wide webhook setting then applies.
 */
export class StatusCallbackUrls {
  constructor(private readonly publicUrl: string | undefined) {}

  urlFor(config: Pick<VendorConfig, 'id' | 'channel' | 'vendor' | 'credentials'>): string | undefined {
    if (this.publicUrl === undefined) return undefined;
    const missing = missingCallbackCredentials(config);
    if (!missing || missing.length > 0) return undefined;
    return `${this.publicUrl.replace(/\/+$/, '')}/v1/vendor-callbacks/${encodeURIComponent(config.id)}/`;
  }
}

/** No public URL: sends name no callback. */
export const NO_STATUS_CALLBACKS = new StatusCallbackUrls(undefined);
