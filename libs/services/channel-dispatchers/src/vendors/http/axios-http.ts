import axios, { AxiosInstance } from 'axios';
import { HttpPort, HttpRequest, HttpResponse } from './http.port';

const DEFAULT_TIMEOUT_MS = 15_000;

/** HttpPort over axios: no redirects followed, no status treated as an error, bodies as text. */
export class AxiosHttp implements HttpPort {
  private readonly client: AxiosInstance = axios.create({
    maxRedirects: 0,
    validateStatus: () => true,
    responseType: 'text',
    transformResponse: (body: unknown) => body,
    // A vendor answering with megabytes is broken; do not buffer it all.
    maxContentLength: 1024 * 1024,
  });

  async request(request: HttpRequest): Promise<HttpResponse> {
    const response = await this.client.request<string>({
      method: request.method,
      url: request.url,
      headers: { ...request.headers },
      data: request.body,
      timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
    return { status: response.status, headers, body: typeof response.data === 'string' ? response.data : '' };
  }
}
