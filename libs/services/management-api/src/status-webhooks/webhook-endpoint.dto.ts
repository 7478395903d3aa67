import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUrl, Length, MaxLength } from 'class-validator';
import { CHANNELS, MESSAGE_STATUSES } from '@herald/contracts';

const MAX_FILTER_ITEMS = 100;
const URL_RULES = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = 'must be an http or https URL';

/** Each field's rules, written once for the create and the patch bodies. */
const Url = () => applyDecorators(IsString(), MaxLength(2048), IsUrl(URL_RULES, { message: URL_MESSAGE }));
const Description = () => applyDecorators(IsOptional(), IsString(), Length(0, 500));
const EventTypes = () =>
  applyDecorators(IsArray(), ArrayMinSize(1), IsIn(MESSAGE_STATUSES, { each: true, message: `each must be one of ${MESSAGE_STATUSES.join(', ')}` }));
/** Workflow slugs or category slugs: an empty or absent filter lets every value through. */
const SlugFilter = () => applyDecorators(IsOptional(), IsArray(), ArrayMaxSize(MAX_FILTER_ITEMS), IsString({ each: true }), Length(1, 128, { each: true }));
const ChannelFilter = () => applyDecorators(IsOptional(), IsArray(), IsIn(CHANNELS, { each: true, message: `each must be one of ${CHANNELS.join(', ')}` }));
const Enabled = () => applyDecorators(IsOptional(), IsBoolean());

/**
 * An endpoint: where (`url`), which statuses (`event_types`, any of the message
 * statuses), and optional filters by workflow slug, channel and category (an empty or
 * absent filter lets every value through).
 */
export class CreateWebhookEndpointDto {
  @Url()
  url!: string;

  @Description()
  description?: string;

  @EventTypes()
  event_types!: string[];

  @SlugFilter()
  workflows?: string[];

  @ChannelFilter()
  channels?: string[];

  @SlugFilter()
  categories?: string[];

  @Enabled()
  enabled?: boolean;
}

/** Any of the create fields; `enabled: false` disables the endpoint (nothing is queued for it or sent), `true` enables it again. */
export class PatchWebhookEndpointDto {
  @IsOptional()
  @Url()
  url?: string;

  @Description()
  description?: string;

  @IsOptional()
  @EventTypes()
  event_types?: string[];

  @SlugFilter()
  workflows?: string[];

  @ChannelFilter()
  channels?: string[];

  @SlugFilter()
  categories?: string[];

  @Enabled()
  enabled?: boolean;
}

/** A time range of an endpoint's deliveries to send again: [since, until), ISO 8601. */
export class ReplayRangeDto {
  @IsString()
  since!: string;

  @IsString()
  until!: string;
}
