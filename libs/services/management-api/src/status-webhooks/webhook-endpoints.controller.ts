import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError, MessageStatusEvent } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { MAX_RANGE_REPLAY, WebhookAttempt, WebhookDelivery, WebhookDeliveryRepository, WebhookDeliveryState } from './webhook-delivery.repository';
import { WEBHOOK_ENDPOINT_BODIES, WebhookEndpointCreate, WebhookEndpointPatch, WebhookReplayRange } from './request-bodies';
import { MAX_ENDPOINTS_PER_WORKSPACE, WebhookEndpoint, WebhookEndpointFields, WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';
import { RequiredRole } from '../auth/roles';

export interface WebhookEndpointView {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  readonly event_types: readonly string[];
  readonly workflows: readonly string[];
  readonly channels: readonly string[];
  readonly categories: readonly string[];
  readonly enabled: boolean;
  readonly masked_secret: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface WebhookDeliveryView {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly message_id: string;
  readonly delivery_id: string;
  readonly state: WebhookDeliveryState;
  readonly attempts: number;
  readonly next_attempt_at: Date | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly replay_of: string | null;
  readonly created_at: Date;
  readonly finished_at: Date | null;
  readonly attempt_log: ReadonlyArray<{ attempt: number; started_at: Date; status_code: number | null; latency_ms: number; error: string | null }>;
  readonly payload: MessageStatusEvent;
}

const DELIVERY_STATES: readonly WebhookDeliveryState[] = ['pending', 'sending', 'delivered', 'dead'];
const notFound = (): HeraldError => HeraldError.notFound('webhook endpoint not found');
const endpointIdPipe = new ParseUUIDPipe({ exceptionFactory: notFound });

/**
 * Status webhooks (`webhook_endpoint`): where Herald POSTs every status change of the
 * workspace's messages, signed in the Standard Webhooks format with the endpoint's
 * secret (in the create answer only). Each endpoint's deliveries and their attempts are
 * the delivery log; one delivery or a time range of them can be replayed.
 */
@Controller('v1/:workspace/webhook_endpoint')
@UseGuards(ServiceTokenGuard)
export class WebhookEndpointsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly secrets: WebhookSecrets,
    private readonly sender: WebhookSender,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<WebhookEndpointView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, endpoints } = await this.endpoints.list(workspace, page);
    return { meta: { count, ...page }, results: endpoints.map(viewOf) };
  }

  @RequiredRole('editor')
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @ValidBody(WEBHOOK_ENDPOINT_BODIES.create) body: WebhookEndpointCreate,
  ): Promise<WebhookEndpointView & { secret: string }> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const id = randomUUID();
    const secret = this.secrets.generate();
    const fields: WebhookEndpointFields = {
      url: body.url,
      description: body.description ?? '',
      eventTypes: unique(body.event_types),
      workflows: unique(body.workflows ?? []),
      channels: unique(body.channels ?? []),
      categories: unique(body.categories ?? []),
      enabled: body.enabled ?? true,
    };
    const created = await this.endpoints.create(workspace, id, fields, this.secrets.seal(id, secret), this.secrets.hint(secret));
    if (!created) {
      throw HeraldError.validation([{ path: 'url', message: `the workspace has ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints, the most it may; delete one first` }]);
    }
    return { ...viewOf(created), secret };
  }

  @RequiredRole('viewer')
  @Get(':id')
  async get(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('id', endpointIdPipe) id: string): Promise<WebhookEndpointView> {
    return viewOf(await this.endpointOf(await this.scope.resolve(accountOf(request), slug), id));
  }

  @RequiredRole('editor')
  @Patch(':id')
  async update(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', endpointIdPipe) id: string,
    @ValidBody(WEBHOOK_ENDPOINT_BODIES.patch) body: WebhookEndpointPatch,
  ): Promise<WebhookEndpointView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    // null counts as not given (as on the create): the field stays as it is.
    const fields: Partial<WebhookEndpointFields> = {
      ...(body.url == null ? {} : { url: body.url }),
      ...(body.description == null ? {} : { description: body.description }),
      ...(body.event_types == null ? {} : { eventTypes: unique(body.event_types) }),
      ...(body.workflows == null ? {} : { workflows: unique(body.workflows) }),
      ...(body.channels == null ? {} : { channels: unique(body.channels) }),
      ...(body.categories == null ? {} : { categories: unique(body.categories) }),
      ...(body.enabled == null ? {} : { enabled: body.enabled }),
    };
    if (Object.keys(fields).length === 0) throw HeraldError.validation([{ path: '', message: 'must set at least one field' }]);
    const updated = await this.endpoints.update(workspace, id, fields);
    if (!updated) throw notFound();
    // Enabled again: what waited for it goes out now.
    if (body.enabled === true) this.sender.wake();
    return viewOf(updated);
  }

  @RequiredRole('editor')
  @Delete(':id')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('id', endpointIdPipe) id: string): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    if (!(await this.endpoints.remove(workspace, id))) throw notFound();
  }

  /** The delivery log: the endpoint's deliveries, newest first, each with its attempts. */
  @RequiredRole('viewer')
  @Get(':id/delivery')
  async listDeliveries(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', endpointIdPipe) id: string,
    @Query('state') state?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<WebhookDeliveryView>> {
    const page = offsetPage(limit, offset);
    if (state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(state)) {
      throw HeraldError.validation([{ path: 'state', message: `must be one of ${DELIVERY_STATES.join(', ')}` }]);
    }
    const endpoint = await this.endpointOf(await this.scope.resolve(accountOf(request), slug), id);
    const { count, deliveries } = await this.deliveries.listDeliveries(endpoint.id, page, { state: state as WebhookDeliveryState | undefined });
    return { meta: { count, ...page }, results: deliveries.map((d) => deliveryViewOf(d, d.attempts_log, d.event)) };
  }

  /** Sends one delivery's event again (same `webhook-id`), after what is queued for its message. */
  @RequiredRole('editor')
  @Post(':id/delivery/:deliveryId/replay')
  @HttpCode(202)
  async replayOne(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', endpointIdPipe) id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<{ replayed: number; delivery_id: string }> {
    const endpoint = await this.endpointOf(await this.scope.resolve(accountOf(request), slug), id);
    const replay = /^[1-9]\d{0,17}$/.test(deliveryId) ? await this.deliveries.replayOne(endpoint.id, deliveryId) : null;
    if (!replay) throw HeraldError.notFound('webhook delivery not found');
    this.sender.wake();
    return { replayed: 1, delivery_id: replay.id };
  }

  /** Sends again every event first queued for the endpoint in [since, until), in order. */
  @RequiredRole('editor')
  @Post(':id/replay')
  @HttpCode(202)
  async replayRange(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', endpointIdPipe) id: string,
    @ValidBody(WEBHOOK_ENDPOINT_BODIES.replayRange) body: WebhookReplayRange,
  ): Promise<{ replayed: number }> {
    const since = new Date(body.since);
    const until = new Date(body.until);
    const errors = [
      ...(Number.isNaN(since.getTime()) ? [{ path: 'since', message: 'must be an ISO 8601 date and time' }] : []),
      ...(Number.isNaN(until.getTime()) ? [{ path: 'until', message: 'must be an ISO 8601 date and time' }] : []),
    ];
    if (errors.length === 0 && !(since < until)) errors.push({ path: 'until', message: 'must be after since' });
    if (errors.length > 0) throw HeraldError.validation(errors);
    const endpoint = await this.endpointOf(await this.scope.resolve(accountOf(request), slug), id);
    // Counted before any work: a range larger than one replay may queue is refused whole.
    const count = await this.deliveries.countInRange(endpoint.id, since, until);
    if (count > MAX_RANGE_REPLAY) {
      throw HeraldError.validation([{ path: 'until', message: `the range holds ${count} deliveries; replay at most ${MAX_RANGE_REPLAY} at once (a shorter range)` }]);
    }
    const replayed = await this.deliveries.replayRange(endpoint.id, since, until);
    if (replayed > 0) this.sender.wake();
    return { replayed };
  }

  private async endpointOf(workspace: ScopedWorkspace, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.find(workspace, id);
    if (!endpoint) throw notFound();
    return endpoint;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function viewOf(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    workflows: endpoint.workflows,
    channels: endpoint.channels,
    categories: endpoint.categories,
    enabled: endpoint.enabled,
    masked_secret: endpoint.secretHint,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

function deliveryViewOf(delivery: WebhookDelivery, attempts: readonly WebhookAttempt[], event: MessageStatusEvent): WebhookDeliveryView {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: event.type,
    message_id: event.message_id,
    delivery_id: event.delivery_id,
    state: delivery.state,
    attempts: delivery.attempts,
    next_attempt_at: delivery.state === 'pending' ? delivery.nextAttemptAt : null,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    replay_of: delivery.replayOf,
    created_at: delivery.createdAt,
    finished_at: delivery.finishedAt,
    attempt_log: attempts.map((a) => ({ attempt: a.attempt, started_at: a.startedAt, status_code: a.statusCode, latency_ms: a.latencyMs, error: a.error })),
    payload: event,
  };
}
