import { VendorConfigError } from './vendor.port';

/** An identity that is an address or a token: a string, or `{token}` / `{value}` as profiles sometimes hold them. */
export function addressOf(identity: unknown): string {
  if (typeof identity === 'string' && identity !== '') return identity;
  if (typeof identity === 'object' && identity !== null) {
    const record = identity as Record<string, unknown>;
    for (const name of ['token', 'value', 'address']) if (typeof record[name] === 'string' && record[name] !== '') return record[name] as string;
  }
  throw new InvalidIdentityError('the destination identity is not an address or a token');
}

/** The command's identity can never be delivered to; a permanent failure. */
export class InvalidIdentityError extends VendorConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidIdentityError';
  }
}
