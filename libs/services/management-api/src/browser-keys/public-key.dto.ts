import { ArrayMaxSize, Equals, IsArray, IsBoolean, IsOptional, IsString, Length, ValidateIf, ValidationArguments, registerDecorator } from 'class-validator';
import { normalizeOrigin } from '@herald/contracts';

const MAX_ORIGINS = 50;

/** Every item a browser origin (`https://app.example.com`, `http://localhost:5173`). */
function AreBrowserOrigins(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'areBrowserOrigins',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || value.every((item) => typeof item === 'string' && normalizeOrigin(item) !== null),
        defaultMessage: (args?: ValidationArguments) => {
          const bad = (args?.value as unknown[]).findIndex((item) => typeof item !== 'string' || normalizeOrigin(item) === null);
          return `[${bad}] must be an origin such as https://app.example.com (scheme, host and optional port; no path)`;
        },
      },
    });
}

/**
 * The reference's create body (name, description) plus Herald's `allowed_domains`:
 * the browser origins that may call the inbox with this key (CORS). None by default,
 * so a new key works from no web page until its origins are set.
 */
export class CreatePublicKeyDto {
  @IsString()
  @Length(1, 64)
  name!: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(0, 500)
  description?: string | null;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsArray()
  @ArrayMaxSize(MAX_ORIGINS)
  @AreBrowserOrigins()
  allowed_domains?: string[] | null;
}

/**
 * The reference's PATCH (`is_secure_mode_enabled`), plus `allowed_domains`; at least one
 * of them. Herald's inbox always requires the signed user token, so secure mode can only
 * be on: `false` is refused rather than stored and ignored.
 */
export class PatchPublicKeyDto {
  @ValidateIf((body: PatchPublicKeyDto) => body.allowed_domains === undefined || body.is_secure_mode_enabled !== undefined)
  @IsBoolean()
  @Equals(true, { message: 'can only be true: the browser inbox always requires a user token signed with the workspace signing key' })
  is_secure_mode_enabled?: boolean;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsArray()
  @ArrayMaxSize(MAX_ORIGINS)
  @AreBrowserOrigins()
  allowed_domains?: string[] | null;
}
