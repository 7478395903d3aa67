import { IsIn, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { VENDOR_APPROVAL_STATUSES, VENDOR_TEMPLATE_CATEGORIES, VendorApprovalStatus } from './vendor-approval';

/**
 * Body of `PATCH .../vendor_approval/`: what an operator learned from a vendor's
 * portal (Herald submits nothing to vendors itself). Approving names the vendor's
 * template; rejecting says why.
 */
export class VendorApprovalDto {
  @IsIn(VENDOR_APPROVAL_STATUSES)
  approval_status!: VendorApprovalStatus;

  @IsString()
  @Length(1, 100)
  vendor_slug!: string;

  @IsString()
  @Length(1, 255)
  vendor_uid!: string;

  @IsOptional()
  @IsString()
  @Length(1, 512)
  vendor_template_name?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  vendor_template_id?: string;

  @IsOptional()
  @IsString()
  @Length(1, 20)
  vendor_locale_code?: string;

  @IsOptional()
  @IsIn(VENDOR_TEMPLATE_CATEGORIES)
  vendor_template_category?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  provider_template_id?: string;

  @ValidateIf((body: VendorApprovalDto) => body.approval_status === 'rejected' || body.comment !== undefined)
  @IsString({ message: 'must be a string; it is required when approval_status is rejected' })
  @Length(1, 2000)
  comment?: string;
}

/** Body of `PATCH .../discard/`. */
export class DiscardVariantDto {
  @IsString()
  @Length(1, 2000)
  comment!: string;
}
