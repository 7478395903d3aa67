import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DeliveryRequested } from '@herald/contracts';
import { EmailContent, RenderedContent } from '@herald/rendering';
import { CLOCK, Clock, EngagementLinks, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger } from '@herald/runtime';
import { VendorConfig } from '../vendors/vendor.port';
import { rewriteLinks, withOpenPixel } from './tracked-links';

/** The delivery an email or web push is sent for. */
export interface TrackedDelivery {
  readonly command: DeliveryRequested;
  readonly workspaceId: string;
}

/** What a template or a vendor configuration says about tracking; `false` turns it off, anything else leaves it on. */
export interface TrackingSwitches {
  readonly opens: boolean;
  readonly clicks: boolean;
}

/**
 * Whether an email of this command sent through this vendor is tracked: on,
 * unless the template's content (`track_opens`, `track_clicks`) or the workspace's vendor
 * configuration (the same two settings) says `false`.
 */
export function trackingSwitches(command: DeliveryRequested, config: VendorConfig): TrackingSwitches {
  const off = (name: string): boolean => command.template.content[name] === false || config.credentials[name] === false;
  return { opens: !off('track_opens'), clicks: !off('track_clicks') };
}

/**
 * The dispatch side of engagement: what an email carries beyond its rendered content.
 * With HERALD_PUBLIC_URL set, its HTML's links point to the click route and a 1x1 pixel to
 * the open route (signed tokens of the delivery and link index, EngagementLinks), and an
 * email of a category its user can opt out of carries `List-Unsubscribe` (an https link
 * to preference-service's one-click route and hosted page) and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058). Without
 * HERALD_PUBLIC_URL everything goes out as rendered.
 */
@Injectable()
export class EngagementTracking implements OnModuleInit {
  readonly links?: EngagementLinks;

  constructor(
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    if (config.publicUrl && config.secretsKey) this.links = new EngagementLinks(config.secretsKey, config.publicUrl);
  }

  onModuleInit(): void {
    if (this.links) this.logger.info('email engagement tracking and List-Unsubscribe on', { public_url: this.links.publicUrl });
    else this.logger.info('email engagement tracking and List-Unsubscribe are off: HERALD_PUBLIC_URL is not set');
  }

  /** The content to hand `config`'s vendor for `command`: tracked and with its headers, or as rendered. */
  contentFor(delivery: TrackedDelivery, content: RenderedContent, config: VendorConfig): RenderedContent {
    if (!this.links) return content;
    // Web push clicks are reported by the browser's service worker (notify.webpush.engagement.v1), so its URL is left as is: one click, one outcome.
    return content.channel === 'email' ? this.email(this.links, delivery, content, config) : content;
  }

  private email(links: EngagementLinks, delivery: TrackedDelivery, content: EmailContent, config: VendorConfig): EmailContent {
    const { command } = delivery;
    const switches = trackingSwitches(command, config);
    let html = content.html;
    if (html !== undefined && switches.clicks) html = rewriteLinks(html, (index) => links.clickUrl(command.delivery_id, index)).html;
    if (html !== undefined && switches.opens) html = withOpenPixel(html, links.openUrl(command.delivery_id));
    const unsubscribe = this.unsubscribeHeaders(links, delivery);
    if (html === content.html && unsubscribe === undefined) return content;
    return { ...content, ...(html === undefined ? {} : { html }), ...(unsubscribe ? { headers: { ...content.headers, ...unsubscribe } } : {}) };
  }

  /** RFC 2369 and RFC 8058 headers, for a user's email in a category the engine found the user can opt out of. */
  private unsubscribeHeaders(links: EngagementLinks, { command, workspaceId }: TrackedDelivery): Record<string, string> | undefined {
    const distinctId = command.recipient.distinct_id;
    if (command.unsubscribable !== true || command.category === undefined || command.recipient.kind !== 'user' || distinctId === undefined) return undefined;
    const url = links.unsubscribeUrl({ workspaceId, workspaceSlug: command.workspace_slug, distinctId, category: command.category, ...(command.tenant_id === undefined ? {} : { tenantId: command.tenant_id }) }, this.clock.now());
    return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
  }
}
