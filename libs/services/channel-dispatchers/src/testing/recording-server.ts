import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Answers this long after the request arrived (it is recorded at once): a slow vendor. */
  readonly delayMs?: number;
}

/**
 * A local HTTP server standing in for a vendor: it records every request and answers
 * from a script (the next scripted response, else the default one).
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptedResponse[] = [];
  private server?: Server;
  private waiters: Array<() => void> = [];

  private constructor(
    private fallback: ScriptedResponse,
    private readonly keepAliveTimeoutMs: number,
  ) {}

  /**
   * `keepAliveTimeoutMs`: how long an idle client connection stays open. 1 ms by default, so
   * a test's close() never waits on one; a vendor keeps them open far longer (a bench needs that).
   */
  static async start(fallback: ScriptedResponse = { status: 200, body: {} }, options: { readonly keepAliveTimeoutMs?: number } = {}): Promise<RecordingServer> {
    const recording = new RecordingServer(fallback, options.keepAliveTimeoutMs ?? 1);
    await recording.listen();
    return recording;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** Answers the next requests with these, in order. */
  respond(...responses: ScriptedResponse[]): this {
    this.script.push(...responses);
    return this;
  }

  answerByDefault(response: ScriptedResponse): this {
    this.fallback = response;
    return this;
  }

  /** Resolves once `count` requests arrived. */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(() => this.requests.length >= count && resolve()));
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private listen(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = this.script.shift() ?? this.fallback;
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        for (const waiter of this.waiters) waiter();
        const answerNow = (): void => void response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(body);
        if (answer.delayMs === undefined) answerNow();
        else setTimeout(answerNow, answer.delayMs);
      });
    });
    this.server.keepAliveTimeout = this.keepAliveTimeoutMs;
    return new Promise((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
  }
}
