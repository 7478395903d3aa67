import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from '@herald/runtime';
import { SECRETS_KEY } from '../accounts/secrets-key';

/**
 * An endpoint's signing secret, in Standard Webhooks' form (`whsec_` and base64 of 32
 * random bytes). Herald must sign with it again at every send, so it cannot be a hash:
 * it is sealed under HERALD_SECRETS_KEY like workspace secrets and vendor credentials,
 * with the endpoint's id as associated data, and shown in full only in the create answer.
 */
@Injectable()
export class WebhookSecrets {
  private readonly box: SecretBox;

  constructor(@Inject(SECRETS_KEY) secretsKey: Buffer) {
    this.box = new SecretBox(secretsKey);
  }

  generate(): string {
    return `whsec_${randomBytes(32).toString('base64')}`;
  }

  seal(endpointId: string, secret: string): Buffer {
    return this.box.seal(secret, associatedData(endpointId));
  }

  open(endpointId: string, sealed: Buffer): string {
    return this.box.open(sealed, associatedData(endpointId));
  }

  /** Enough to tell secrets apart in a list. */
  hint(secret: string): string {
    return `${secret.slice(0, 10)}${'*'.repeat(12)}`;
  }
}

function associatedData(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}
