import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';

/** Variant ids name a variant within its channel (`default`, `spanish`, `tenant-acme`). */
export const VARIANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Language tags as `en`, `pt-BR`, `zh-Hans` (also `en_US`, as some vendors write them). */
const LOCALE = /^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

/** The namespaces a variant condition reads at send time; empty means the trigger payload. */
export const CONDITION_NAMESPACES = ['', '$recipient', '$actor', '$tenant', '$brand'] as const;
export const CONDITION_OPS = ['==', '!=', '>', '<', '>=', '<=', 'EMPTY', 'NON_EMPTY', 'CONTAINS', 'NOT_CONTAINS'] as const;

export class ConditionComparisonDto {
  @IsOptional()
  @IsIn(CONDITION_NAMESPACES)
  variable_ns?: string;

  @IsString()
  @Length(1, 255)
  variable!: string;

  @IsIn(CONDITION_OPS)
  op!: string;

  @IsOptional()
  @IsString()
  @Length(0, 1000)
  value?: string;
}

export class ConditionExpressionDto {
  @IsIn(['AND', 'OR'])
  op!: 'AND' | 'OR';

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => ConditionComparisonDto)
  args!: ConditionComparisonDto[];
}

/** `{type: "expression_v1", expression_v1: {op, args}}`, as the reference's variant conditions. */
export class VariantConditionDto {
  @IsIn(['expression_v1'])
  type!: 'expression_v1';

  @IsObject()
  @ValidateNested()
  @Type(() => ConditionExpressionDto)
  expression_v1!: ConditionExpressionDto;
}

/**
 * Body of `POST .../channel/{channel}/variant/{variant_id}/`: the whole variant
 * definition, which replaces the draft's. `seq_no` left out keeps the variant's
 * place (or takes the next free one in its channel + tenant + locale). The content
 * is checked per channel separately, so a draft with mistakes can still be saved.
 */
export class UpsertVariantDto {
  @IsString()
  @Matches(LOCALE, { message: 'must be a language tag such as en or pt-BR' })
  locale!: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  tenant_id?: string | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => VariantConditionDto)
  conditions?: VariantConditionDto[];

  @IsObject()
  content!: Record<string, unknown>;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000)
  seq_no?: number;

  @IsOptional()
  @IsBoolean()
  needs_vendor_approval?: boolean;
}
