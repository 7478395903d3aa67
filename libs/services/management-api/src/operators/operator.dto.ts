import { IsEmail, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { OPERATOR_ROLES, OperatorRole } from '../auth/roles';
import { PASSWORD_MAX_LENGTH } from './passwords';

export class InviteOperatorDto {
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @IsIn(OPERATOR_ROLES)
  role!: OperatorRole;
}

export class ChangeOperatorRoleDto {
  @IsIn(OPERATOR_ROLES)
  role!: OperatorRole;
}

export class SignInDto {
  @IsString()
  @Length(1, 254)
  email!: string;

  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  password!: string;
}

export class AcceptInvitationDto {
  @IsString()
  @Length(1, 200)
  token!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  /** The password rules (passwords.ts) are checked after the shape, with the operator's email at hand. */
  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  password!: string;
}

export class PasswordResetDto {
  @IsString()
  @Length(1, 200)
  token!: string;

  /** The password rules (passwords.ts) are checked after the shape, with the operator's email at hand. */
  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  password!: string;
}
