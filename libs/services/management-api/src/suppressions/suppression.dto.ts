import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { SUPPRESSION_REASONS } from '@herald/contracts';
import { SUPPRESSIBLE_CHANNELS } from './suppression.repository';

/**
 * An address an operator puts on the list: `manual` by default; `hard_bounce` or
 * `complaint` when importing what another system learnt. `detail` is the operator's note.
 */
export class AddSuppressionDto {
  @IsIn(SUPPRESSIBLE_CHANNELS, { message: `must be one of ${SUPPRESSIBLE_CHANNELS.join(', ')}` })
  channel!: string;

  @IsString()
  @Length(1, 320)
  address!: string;

  @IsOptional()
  @IsIn(SUPPRESSION_REASONS, { message: `must be one of ${SUPPRESSION_REASONS.join(', ')}` })
  reason?: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  detail?: string;
}
