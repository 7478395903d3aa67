import { IsBoolean, IsISO8601, IsOptional, IsString, Length } from 'class-validator';

export class CreateApiKeyDto {
  @IsString()
  @Length(1, 64)
  name!: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  /** When the key stops working (ISO 8601, in the future); without it the key lives until deleted. */
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string;

  /** The key may only read (GET and HEAD on `{base_url}`); anything else is refused with 403. Herald's, for dashboards. */
  @IsOptional()
  @IsBoolean()
  read_only?: boolean;
}
