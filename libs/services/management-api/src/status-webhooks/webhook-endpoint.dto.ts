import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUrl, Length, MaxLength } from 'class-validator';
import { CHANNELS, MESSAGE_STATUSES } from '@herald/contracts';

const MAX_FILTER_ITEMS = 100;
const URL_RULES = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = 'must be an http or https URL';

/**
 * An endpoint: where (`url`), which statuses (`event_types`, any of the message
 * statuses), and optional filters by workflow slug, channel and category (an empty or
 * absent filter lets every value through).
 */
export class CreateWebhookEndpointDto {
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_RULES, { message: URL_MESSAGE })
  url!: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  @IsArray()
  @ArrayMinSize(1)
  @IsIn(MESSAGE_STATUSES, { each: true, message: `each must be one of ${MESSAGE_STATUSES.join(', ')}` })
  event_types!: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILTER_ITEMS)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  workflows?: string[];

  @IsOptional()
  @IsArray()
  @IsIn(CHANNELS, { each: true, message: `each must be one of ${CHANNELS.join(', ')}` })
  channels?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILTER_ITEMS)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  categories?: string[];

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** Any of the create fields; `enabled: false` disables the endpoint (nothing is queued for it or sent), `true` enables it again. */
export class PatchWebhookEndpointDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_RULES, { message: URL_MESSAGE })
  url?: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(MESSAGE_STATUSES, { each: true, message: `each must be one of ${MESSAGE_STATUSES.join(', ')}` })
  event_types?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILTER_ITEMS)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  workflows?: string[];

  @IsOptional()
  @IsArray()
  @IsIn(CHANNELS, { each: true, message: `each must be one of ${CHANNELS.join(', ')}` })
  channels?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILTER_ITEMS)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  categories?: string[];

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** A time range of an endpoint's deliveries to send again: [since, until), ISO 8601. */
export class ReplayRangeDto {
  @IsString()
  since!: string;

  @IsString()
  until!: string;
}
