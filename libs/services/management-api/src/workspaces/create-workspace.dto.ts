import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

export class CreateWorkspaceDto {
  @IsString()
  @Length(1, 64)
  name!: string;

  /** Defaults to the name, lower-cased with other characters turned into dashes. */
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9-_]{1,64}$/, { message: 'must match ^[a-z0-9-_]{1,64}$' })
  slug?: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  @IsOptional()
  @IsIn(['sandbox', 'production'])
  mode?: 'sandbox' | 'production';
}

export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}
