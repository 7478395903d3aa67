import { ArrayMaxSize, IsArray, IsOptional, IsString, Length } from 'class-validator';

export class CreateWorkspaceKeyDto {
  @IsString()
  @Length(1, 64)
  name!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 253, { each: true })
  allowed_domains?: string[];
}
