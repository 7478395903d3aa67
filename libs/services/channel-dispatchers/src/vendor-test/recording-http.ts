import { HttpBytes, HttpPort, HttpRequest, HttpResponse } from '../vendors/http/http.port';

/**
 * The dispatchers' HTTP port, noting the last vendor response, so a vendor test can show
 * what the vendor answered (adapters reduce an answer to sent or a reason). Closing it
 * leaves the shared port open: the registry of one test closes only its own pools.
 */
export class RecordingHttp implements HttpPort {
  last?: { readonly status: number; readonly body: string };

  constructor(private readonly delegate: HttpPort) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    const response = await this.delegate.request(request);
    this.last = { status: response.status, body: response.body };
    return response;
  }

  getBytes(url: string, options: { readonly maxBytes: number; readonly timeoutMs?: number }): Promise<HttpBytes> {
    return this.delegate.getBytes(url, options);
  }

  close(): void {
    // The delegate is the module's, shared with deliveries.
  }
}
