import { Channel } from '@herald/contracts';
import { InboxWrites } from '../inbox/inbox-writes';
import { MsTeamsVendor } from './chat/ms-teams-vendor';
import { SlackVendor } from './chat/slack-vendor';
import { MailgunVendor, PostmarkVendor, ResendVendor, SendgridVendor } from './email/http-email-vendors';
import { SmtpVendor } from './email/smtp-vendor';
import { HttpPort } from './http/http.port';
import { HeraldInboxVendor } from './inbox/herald-inbox-vendor';
import { AddressGuard } from './net/address-guard';
import { ApnsVendor } from './push/apns-vendor';
import { FcmVendor } from './push/fcm-vendor';
import { WebpushVendor } from './push/webpush-vendor';
import { PlivoVendor, TwilioVendor, VonageVendor } from './sms/sms-vendors';
import { NO_STATUS_CALLBACKS, StatusCallbackUrls } from './status-callback-urls';
import { ChannelVendor } from './vendor.port';
import { MetaCloudVendor } from './whatsapp/meta-cloud-vendor';

/** The vendor implementations by `<channel>/<vendor>`, as the management catalogue names them. */
export class VendorRegistry {
  private readonly vendors = new Map<string, ChannelVendor>();
  private readonly smtp: SmtpVendor;
  private readonly apns: ApnsVendor;

  constructor(
    private readonly http: HttpPort,
    guard: AddressGuard,
    inbox: InboxWrites,
    /** The per-message status callback URLs the SMS vendors name (none without HERALD_PUBLIC_URL). */
    callbacks: StatusCallbackUrls = NO_STATUS_CALLBACKS,
  ) {
    // SMTP and APNs make their own connections (nodemailer, HTTP/2), checked by the guard; the rest go through `http`.
    this.smtp = new SmtpVendor(guard);
    this.apns = new ApnsVendor(guard);
    const all: ChannelVendor[] = [
      this.smtp,
      new SendgridVendor(http),
      new MailgunVendor(http),
      new PostmarkVendor(http),
      new ResendVendor(http),
      new TwilioVendor(http, callbacks),
      new VonageVendor(http, callbacks),
      new PlivoVendor(http, callbacks),
      new SlackVendor(http),
      new MsTeamsVendor(http),
      new MetaCloudVendor(http),
      new FcmVendor(http),
      this.apns,
      new WebpushVendor(http),
      new HeraldInboxVendor(inbox),
    ];
    for (const vendor of all) this.vendors.set(`${vendor.channel}/${vendor.vendor}`, vendor);
  }

  /** Undefined for a catalogue vendor not implemented yet. */
  find(channel: Channel, vendor: string): ChannelVendor | undefined {
    return this.vendors.get(`${channel}/${vendor}`);
  }

  /** Closes pooled connections (on shutdown). */
  close(): void {
    this.smtp.close();
    this.apns.close();
    this.http.close();
  }
}
