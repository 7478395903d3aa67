import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { Dispatcher } from '../dispatch/dispatcher';
import { outcomeMessage } from '../dispatch/outcome-message';
import { CallbackRecord, TrackedDelivery, VendorCallbackRepository } from '../vendor-callbacks/vendor-callback.repository';
import { EngagementTracking } from './engagement-tracking';
import { trackableLinks } from './tracked-links';

/** A transparent 1x1 GIF: what an open pixel answers. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export type EngagementAnswer =
  | { readonly kind: 'pixel' }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'refused'; readonly status: 404; readonly message: string };

const refused = (message: string): EngagementAnswer => ({ kind: 'refused', status: 404, message });

/**
 * The open pixel and the click route. A token is verified before anything is read; a
 * forged one, one of a delivery Herald does not hold, or a link index the message did not
 * have, is a 404 and records nothing. A click goes only to the URL that was at that
 * position in the message: the dispatcher renders the stored command again, as it did to
 * send it, and takes the link at the token's index, so the route can never be made to
 * redirect elsewhere. Each records `seen` (a click too: it proves the open, which an
 * image-blocking client never reports) and `clicked` once per delivery, as outcomes the
 * run, the message log, webhooks and `notify.status.v1` all see.
 */
@Injectable()
export class EngagementRoutes {
  constructor(
    private readonly tracking: EngagementTracking,
    private readonly records: VendorCallbackRepository,
    private readonly dispatcher: Dispatcher,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async open(token: string): Promise<EngagementAnswer> {
    const read = this.tracking.links?.readTrackingToken(token);
    if (read?.kind !== 'open') return refused('unknown open pixel');
    const delivery = await this.records.trackedDelivery(read.deliveryId);
    if (!delivery) return refused('unknown open pixel');
    await this.record(delivery, ['seen'], 'open_pixel');
    return { kind: 'pixel' };
  }

  async click(token: string): Promise<EngagementAnswer> {
    const read = this.tracking.links?.readTrackingToken(token);
    if (read?.kind !== 'click') return refused('unknown tracked link');
    const delivery = await this.records.trackedDelivery(read.deliveryId);
    if (!delivery) return refused('unknown tracked link');
    const location = redirectTarget((await this.linksOf(delivery))[read.linkIndex]);
    if (location === undefined) return refused('the message has no such link');
    await this.record(delivery, ['seen', 'clicked'], 'link_click');
    return { kind: 'redirect', location };
  }

  /** The email's trackable links as the send rendered them. */
  private async linksOf(delivery: TrackedDelivery): Promise<readonly string[]> {
    if (delivery.command.channel !== 'email') return [];
    const { rendered } = await this.dispatcher.prepare(delivery.workspaceId, delivery.command);
    return rendered.ok && rendered.content.channel === 'email' && rendered.content.html !== undefined ? trackableLinks(rendered.content.html) : [];
  }

  /** Only a message that went out is seen or clicked; a failure to record never stops the redirect or the pixel. */
  private async record(delivery: TrackedDelivery, statuses: ReadonlyArray<'seen' | 'clicked'>, vendorEvent: string): Promise<void> {
    if (delivery.status !== 'sent') return;
    const now = this.clock.now();
    const records: CallbackRecord[] = statuses.map((status) => ({
      deliveryId: delivery.deliveryId,
      status,
      // The id a vendor's own open or click of this delivery would have: one `seen`, one `clicked` per delivery, whoever saw it first.
      outcome: outcomeMessage(
        delivery,
        { status, vendor: delivery.vendor ?? undefined, vendor_message_id: delivery.vendorMessageId ?? undefined, vendor_event: vendorEvent },
        now,
        'callback',
        status,
      ),
    }));
    try {
      await this.records.record(records);
    } catch (error) {
      this.logger.warn('engagement not recorded', { delivery_id: delivery.deliveryId, error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** The link as a Location header carries it (ASCII, percent-encoded), or undefined when it is no http(s) URL. */
function redirectTarget(link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
