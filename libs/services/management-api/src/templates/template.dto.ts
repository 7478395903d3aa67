import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { CHANNELS, Channel } from '@herald/contracts';

/** Template slugs, as the workflow send nodes reference them: 1 to 120 of a-z, 0-9, - and _. */
export const TEMPLATE_SLUG = /^[a-z0-9-_]{1,120}$/;

/**
 * Body of `POST /v2/{workspace}/template/{slug}/`: creates the template or updates its
 * draft metadata. A field left out keeps its value on update; `description: null` clears it.
 */
export class UpsertTemplateDto {
  @IsString()
  @Length(1, 255)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 64, { each: true })
  tags?: string[];

  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(CHANNELS, { each: true, message: `each value must be one of ${CHANNELS.join(', ')}` })
  enabled_channels?: Channel[];

  /** Strict rendering: a variable the content uses and the data lacks fails the delivery (not retried) instead of rendering empty. */
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

/** Body of the commit; the reference passes `commit_message` in the query, which wins. */
export class CommitTemplateDto {
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  commit_message?: string;
}
