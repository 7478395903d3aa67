import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError, suppressionAddress } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { RequiredRole } from '../auth/roles';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { SUPPRESSION_BODIES, SuppressionCreate } from './request-bodies';
import { SUPPRESSIBLE_CHANNELS, SuppressibleChannel, Suppression, SuppressionRepository } from './suppression.repository';

export interface SuppressionView {
  readonly channel: string;
  readonly address: string;
  readonly reason: string;
  readonly detail: string | null;
  readonly vendor: string | null;
  readonly created_at: Date;
}

const PHONE = /^\+\d{6,15}$/;
const notFound = (): HeraldError => HeraldError.notFound('the address is not on the suppression list');

/**
 * The workspace's suppression list (`suppression`): the addresses sends skip, with why.
 * Vendors' hard bounces and complaints appear here once the dispatchers announce them;
 * what an operator adds or removes here reaches the dispatchers through
 * `notify.suppression.changed.v1`. Addresses are compared as sends compare them: an email
 * without case, a phone number without spaces or dashes.
 */
@Controller('v1/:workspace/suppression')
@UseGuards(ServiceTokenGuard)
export class SuppressionsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly suppressions: SuppressionRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('channel') channel?: string,
    @Query('address') address?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<SuppressionView>> {
    const page = offsetPage(limit, offset);
    const onChannel = channel === undefined || channel === '' ? undefined : channelOf('channel', channel);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    // Without a channel, the address matches in any channel's form of it.
    const addresses =
      address === undefined || address === '' ? undefined : [...new Set((onChannel ? [onChannel] : SUPPRESSIBLE_CHANNELS).map((each) => suppressionAddress(each, address)))];
    const { count, suppressions } = await this.suppressions.list(workspace, { channel: onChannel, addresses }, page);
    return { meta: { count, ...page }, results: suppressions.map(viewOf) };
  }

  @RequiredRole('editor')
  @Post()
  @HttpCode(201)
  async add(@Req() request: ManagementRequest, @Param('workspace') slug: string, @ValidBody(SUPPRESSION_BODIES.add) body: SuppressionCreate): Promise<SuppressionView> {
    const address = addressOf('address', body.channel, body.address);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const added = await this.suppressions.add(workspace, body.channel, address, body.reason ?? 'manual', body.detail || null);
    return viewOf(added);
  }

  @RequiredRole('viewer')
  @Get(':channel/:address')
  async get(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('channel') channel: string, @Param('address') address: string): Promise<SuppressionView> {
    const [onChannel, normalized] = keyOf(channel, address);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const found = await this.suppressions.find(workspace, onChannel, normalized);
    if (!found) throw notFound();
    return viewOf(found);
  }

  /** Takes the address off the list: its next send goes out (the dispatchers drop their cached list on the announcement). */
  @RequiredRole('editor')
  @Delete(':channel/:address')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('channel') channel: string, @Param('address') address: string): Promise<void> {
    const [onChannel, normalized] = keyOf(channel, address);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    if (!(await this.suppressions.remove(workspace, onChannel, normalized))) throw notFound();
  }
}

function channelOf(path: string, value: string): SuppressibleChannel {
  const channel = SUPPRESSIBLE_CHANNELS.find((each) => each === value);
  if (!channel) throw HeraldError.validation([{ path, message: `must be one of ${SUPPRESSIBLE_CHANNELS.join(', ')}` }]);
  return channel;
}

/** The address as sends compare it, or a 400 naming `path` when it cannot be one of the channel's. */
function addressOf(path: string, channel: SuppressibleChannel, value: string): string {
  const address = suppressionAddress(channel, value);
  const errors: FieldError[] = [];
  if (channel === 'email' && !/^[^\s@]+@[^\s@]+$/.test(address)) errors.push({ path, message: 'must be an email address (local@domain)' });
  if (channel !== 'email' && !PHONE.test(address)) errors.push({ path, message: 'must be a phone number in international form (+14155550100)' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return address;
}

/** A path's channel and address; an address no send could have is simply not on the list. */
function keyOf(channel: string, address: string): [SuppressibleChannel, string] {
  const onChannel = SUPPRESSIBLE_CHANNELS.find((each) => each === channel);
  if (!onChannel) throw notFound();
  return [onChannel, suppressionAddress(onChannel, address)];
}

function viewOf(entry: Suppression): SuppressionView {
  return { channel: entry.channel, address: entry.address, reason: entry.reason, detail: entry.detail, vendor: entry.vendor, created_at: entry.createdAt };
}
