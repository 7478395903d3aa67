import { Inject, Injectable } from '@nestjs/common';
import { HeraldError, SealedVendorTest, VENDOR_TEST_PATH, VENDOR_TEST_SEAL, VendorTestAnswer, VendorTestRequest } from '@herald/contracts';
import { CLOCK, Clock, HERALD_CONFIG, HeraldConfig, SecretBox } from '@herald/runtime';
import { SECRETS_KEY } from '../accounts/secrets-key';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { VendorDocument } from './vendor.repository';

/** A vendor may take its time (SMTP connect and reply timeouts are 10 and 30 s in the dispatchers). */
const TEST_TIMEOUT_MS = 45_000;

/**
 * Asks channel-dispatchers to send one test message through a vendor configuration
 * (contracts/vendor-test.ts): the adapters live there, and a service imports no other.
 * The request is sealed with HERALD_SECRETS_KEY, which both services hold already.
 * Where the dispatchers are: HERALD_DISPATCHERS_URL, or, embedded, this very process's
 * notification API (the embedded launcher says so once it listens).
 */
@Injectable()
export class VendorTestClient {
  private readonly box: SecretBox;
  private embeddedUrl?: string;

  constructor(
    @Inject(SECRETS_KEY) secretsKey: Buffer,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.box = new SecretBox(secretsKey);
  }

  /** Embedded mode: the dispatchers serve this process's `{base_url}`. */
  useEmbeddedDispatchersUrl(url: string): void {
    this.embeddedUrl = url;
  }

  async send(workspace: ScopedWorkspace, vendor: VendorDocument, to: unknown): Promise<VendorTestAnswer> {
    const base = this.config.dispatchersUrl ?? this.embeddedUrl;
    if (!base) throw new HeraldError('unavailable', 'vendor tests need channel-dispatchers: set HERALD_DISPATCHERS_URL on management-api');
    const request: VendorTestRequest = {
      issued_at: this.clock.now().getTime(),
      workspace_id: workspace.id,
      vendor: {
        id: vendor.id,
        channel: vendor.channel,
        vendor: vendor.vendor,
        version: vendor.version,
        base_url: vendor.base_url,
        settings: vendor.settings,
        credentials_sealed: vendor.credentials_sealed,
      },
      to,
    };
    const body: SealedVendorTest = { sealed: this.box.seal(JSON.stringify(request), VENDOR_TEST_SEAL).toString('base64') };
    let response: Response;
    try {
      response = await fetch(new URL(VENDOR_TEST_PATH, base.endsWith('/') ? base : `${base}/`), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new HeraldError('unavailable', `channel-dispatchers did not answer the vendor test: ${error instanceof Error ? error.message : String(error)}`);
    }
    const answer = (await response.json().catch(() => null)) as VendorTestAnswer | { message?: string } | null;
    if (!response.ok || answer === null || !('ok' in answer)) {
      const reason = answer && 'message' in answer && typeof answer.message === 'string' ? answer.message : `status ${response.status}`;
      throw new HeraldError('unavailable', `channel-dispatchers refused the vendor test: ${reason}`);
    }
    return answer;
  }
}
