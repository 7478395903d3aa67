import { Channel } from '@herald/contracts';
import { InboxStore } from '../inbox/inbox-store';
import { MsTeamsVendor } from './chat/ms-teams-vendor';
import { SlackVendor } from './chat/slack-vendor';
import { MailgunVendor, PostmarkVendor, ResendVendor, SendgridVendor } from './email/http-email-vendors';
import { SmtpVendor } from './email/smtp-vendor';
import { HttpPort } from './http/http.port';
import { HeraldInboxVendor } from './inbox/herald-inbox-vendor';
import { TwilioVendor, VonageVendor } from './sms/sms-vendors';
import { ChannelVendor } from './vendor.port';

/** The vendor implementations by `<channel>/<vendor>`, as the management catalogue names them. */
export class VendorRegistry {
  private readonly vendors = new Map<string, ChannelVendor>();
  private readonly smtp = new SmtpVendor();

  constructor(http: HttpPort, inbox: InboxStore) {
    const all: ChannelVendor[] = [
      this.smtp,
      new SendgridVendor(http),
      new MailgunVendor(http),
      new PostmarkVendor(http),
      new ResendVendor(http),
      new TwilioVendor(http),
      new VonageVendor(http),
      new SlackVendor(http),
      new MsTeamsVendor(http),
      new HeraldInboxVendor(inbox),
    ];
    for (const vendor of all) this.vendors.set(`${vendor.channel}/${vendor.vendor}`, vendor);
  }

  /** Undefined for a catalogue vendor not implemented yet. */
  find(channel: Channel, vendor: string): ChannelVendor | undefined {
    return this.vendors.get(`${channel}/${vendor}`);
  }

  close(): void {
    this.smtp.close();
  }
}
