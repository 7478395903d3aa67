import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from '@herald/runtime';
import { SECRETS_KEY } from '../accounts/secrets-key';
import { CredentialValue, Credentials, shownCredential } from './credential-fields';
import { VendorSpec } from './vendor-catalogue';

/**
 * The associated data a vendor's credentials are sealed with: the row's identity, so a
 * sealed blob copied onto another vendor's row does not open. The dispatchers, holding
 * the same HERALD_SECRETS_KEY, open the blob of a `definition.changed` document with it.
 */
export function vendorAssociatedData(vendorId: string): string {
  return `vendor:${vendorId}`;
}

/**
 * Seals a vendor's credentials as one JSON blob (AES-256-GCM), so the database, the
 * outbox and the bus only ever hold ciphertext, and masks them for responses.
 */
@Injectable()
export class VendorCredentials {
  private readonly box: SecretBox;

  constructor(@Inject(SECRETS_KEY) secretsKey: Buffer) {
    this.box = new SecretBox(secretsKey);
  }

  seal(vendorId: string, credentials: Credentials): Buffer {
    return this.box.seal(JSON.stringify(credentials), vendorAssociatedData(vendorId));
  }

  open(vendorId: string, sealed: Buffer): Credentials {
    return JSON.parse(this.box.open(sealed, vendorAssociatedData(vendorId))) as Credentials;
  }

  /** What responses show: settings in full, keys and secrets masked (never a secret in full). */
  mask(spec: VendorSpec, credentials: Credentials): Record<string, CredentialValue> {
    return Object.fromEntries(
      Object.entries(credentials).map(([name, value]: [string, CredentialValue]) => [name, shownCredential(spec.credentials[name], value)]),
    );
  }
}
