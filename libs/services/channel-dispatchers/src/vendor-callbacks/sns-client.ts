import { snsCertificateUrlProblem } from './callback-signatures';

/** What verifying Amazon SNS messages needs from the network: its signing certificates, and confirming a subscription. */
export interface SnsClient {
  /** The PEM at a SigningCertURL (checked to be an SNS one before this is asked). */
  certificate(url: string): Promise<string>;
  /** Visits a subscription's SubscribeURL, which confirms it. */
  confirmSubscription(url: string): Promise<void>;
}

export const SNS_CLIENT = Symbol('SNS_CLIENT');

const CERTIFICATE_MAX_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;

/**
 * SNS over HTTPS. Certificates are cached by URL for the process's life (SNS rotates them
 * under new URLs), so a burst of notifications fetches one once; only URLs on an
 * sns.<region>.amazonaws.com host are ever fetched or visited.
 */
export class HttpsSnsClient implements SnsClient {
  private readonly certificates = new Map<string, Promise<string>>();

  certificate(url: string): Promise<string> {
    const problem = snsCertificateUrlProblem(url);
    if (problem) return Promise.reject(new Error(problem));
    let pending = this.certificates.get(url);
    if (!pending) {
      pending = fetchText(url, CERTIFICATE_MAX_BYTES);
      this.certificates.set(url, pending);
      // A failed fetch is not kept: the vendor's retry fetches again.
      pending.catch(() => this.certificates.delete(url));
    }
    return pending;
  }

  async confirmSubscription(url: string): Promise<void> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' || !/^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(parsed.hostname)) throw new Error('SubscribeURL is not an SNS URL');
    await fetchText(url, 64 * 1024);
  }
}

async function fetchText(url: string, maxBytes: number): Promise<string> {
  const answer = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = await answer.text();
  if (!answer.ok) throw new Error(`${new URL(url).hostname} answered ${answer.status}`);
  if (body.length > maxBytes) throw new Error(`${new URL(url).hostname} answered more than ${maxBytes} bytes`);
  return body;
}
