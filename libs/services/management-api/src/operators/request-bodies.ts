import { Static, Type } from '@sinclair/typebox';
import { FormattedString, StringEnum } from '@herald/contracts';
import { OPERATOR_ROLES } from '../auth/roles';
import { BoundedText } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';

/**
 * The bodies of `/v1/operator/` and `/v1/operator_session/` (docs/architecture.md,
 * "Contracts"): the handlers' `@ValidBody` validates them, operators-openapi.ts shows them.
 * A new password's rules (passwords.ts) are checked after the shape, with the operator's
 * email at hand.
 */
const role = StringEnum(OPERATOR_ROLES, { description: 'owner: everything, operators and credentials; editor: definitions; viewer: reads, secrets hidden' });
const newPassword = BoundedText(1, PASSWORD_MAX_LENGTH, {
  description: `At least ${PASSWORD_MIN_LENGTH} characters, 5 of them different, not containing the email address`,
});
const object = { 'x-message': 'must be a JSON object' };

export const OperatorInviteSchema = managementSchemas.named(
  'OperatorInvite',
  Type.Object({ email: FormattedString('email', { maxLength: 254, 'x-message': 'must be an email address of at most 254 characters' }), role }, object),
);
export type OperatorInvite = Static<typeof OperatorInviteSchema>;

export const OperatorRoleChangeSchema = managementSchemas.named('OperatorRoleChange', Type.Object({ role }, object));
export type OperatorRoleChange = Static<typeof OperatorRoleChangeSchema>;

export const OperatorSignInSchema = managementSchemas.named('OperatorSignIn', Type.Object({ email: BoundedText(1, 254), password: BoundedText(1, PASSWORD_MAX_LENGTH) }, object));
export type OperatorSignIn = Static<typeof OperatorSignInSchema>;

export const InvitationAcceptSchema = managementSchemas.named(
  'InvitationAccept',
  Type.Object({ token: BoundedText(1, 200, { description: 'The invitation token (from `accept_url`)' }), name: BoundedText(1, 200), password: newPassword }, object),
);
export type InvitationAccept = Static<typeof InvitationAcceptSchema>;

export const PasswordResetUseSchema = managementSchemas.named(
  'PasswordResetUse',
  Type.Object({ token: BoundedText(1, 200, { description: 'The password reset token (from `reset_url`)' }), password: newPassword }, object),
);
export type PasswordResetUse = Static<typeof PasswordResetUseSchema>;

export const OPERATOR_BODIES = {
  invite: managementSchemas.parser(OperatorInviteSchema),
  roleChange: managementSchemas.parser(OperatorRoleChangeSchema),
  signIn: managementSchemas.parser(OperatorSignInSchema),
  invitationAccept: managementSchemas.parser(InvitationAcceptSchema),
  passwordResetUse: managementSchemas.parser(PasswordResetUseSchema),
} as const;
