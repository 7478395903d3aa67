import { Controller, Inject, OnModuleDestroy } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RUN_HTTP_REQUESTED_TYPE, RunHttpRequest, RunHttpRequestedMessage, TOPICS, parseRunHttpRequested } from '@herald/contracts';
import { HttpMethod, OutboundBody, OutboundHttp, OutboundRequest, Send, createOutboundHttp, withRetries } from '@herald/outbound-http';
import { ConsumerOf, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger } from '@herald/runtime';
import { HttpResponse } from '@herald/workflow';
import { RunHost } from './run-host';

/** Attempts of one webhook or fetch call (network errors, timeouts, 5xx and 429 are retried). */
const MAX_ATTEMPTS = 3;

/**
 * Sends the HTTP requests of webhook and fetch nodes, after the run recorded them
 * (they arrive through the outbox on `notify.run.http_requested.v1`), through the
 * guarded outbound client: private and metadata addresses are refused unless
 * HERALD_OUTBOUND_ALLOW lists them. The final answer goes back into the run as an
 * `http_responded` input. The request id travels as `Idempotency-Key`, so a receiver
 * can drop the repeat that a crash between the call and the record would cause.
 */
@Controller()
export class HttpWorker implements OnModuleDestroy {
  private readonly http: OutboundHttp;
  private readonly send: Send;

  constructor(
    private readonly runs: RunHost,
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.http = createOutboundHttp({ allow: config.outboundAllow });
    this.send = withRetries({
      maxAttempts: MAX_ATTEMPTS,
      onRetry: (event) => this.logger.warn('webhook call failed; retrying', { ...event }),
    })(this.http.send);
  }

  @ConsumerOf({ groupId: 'herald.engine.http', topics: [TOPICS.runHttpRequested.name], messages: { type: RUN_HTTP_REQUESTED_TYPE, parsePayload: parseRunHttpRequested } })
  async handle(@Payload() message: RunHttpRequestedMessage): Promise<void> {
    const response = await this.call(message.request);
    this.logger.info('webhook call finished', {
      run_id: message.run_id,
      request_id: message.request.request_id,
      ...(response.kind === 'response' ? { status: response.status } : { error: response.error }),
    });
    await this.runs.httpResponded(message.stream_id, message.request.request_id, response);
  }

  onModuleDestroy(): void {
    this.http.close();
  }

  private async call(request: RunHttpRequest): Promise<HttpResponse> {
    const result = await this.send(outboundRequest(request));
    if (result.ok) return { kind: 'response', status: result.response.status, body: result.response.body };
    if (result.failure.kind === 'http_status') return { kind: 'response', status: result.failure.status, body: result.failure.response.body };
    return { kind: 'network_error', error: `${result.failure.kind}: ${result.failure.message}` };
  }
}

function outboundRequest(request: RunHttpRequest): OutboundRequest {
  const headers = Object.fromEntries(request.headers.map((h) => [h.key, h.value]));
  const query: Record<string, string[]> = {};
  for (const { key, value } of request.query) (query[key] ??= []).push(value);
  return {
    url: request.url,
    method: request.method.toUpperCase() as HttpMethod,
    headers,
    query,
    ...(request.body === undefined ? {} : { body: outboundBody(request.body, request.body_content_type) }),
    idempotencyKey: { header: 'Idempotency-Key', value: request.request_id },
    timeoutMs: request.timeout_ms,
  };
}

function outboundBody(body: unknown, contentType: string | undefined): OutboundBody {
  if (contentType === undefined || /json/i.test(contentType)) return { json: body };
  return { raw: typeof body === 'string' ? body : JSON.stringify(body), contentType };
}
