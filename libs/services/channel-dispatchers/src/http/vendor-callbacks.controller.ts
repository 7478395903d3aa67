import { Controller, Get, Injectable, OnModuleInit, Param, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HTTP_BODY_LIMIT_BYTES, RequestBodySchema } from '@herald/runtime';
import { CallbackRequest, VendorCallbacks } from '../vendor-callbacks/vendor-callbacks';
import { VendorCallbackSchema } from './dispatch-schemas';

const FORM = 'application/x-www-form-urlencoded';

/**
 * The public status-callback routes of vendors: no Herald credential, each request
 * verified as its vendor signs it (VendorCallbacks). Twilio and Vonage post forms; their
 * text is kept as is (the signature covers the parameters as sent) and read by the route.
 */
@Controller('v1/vendor-callbacks')
export class VendorCallbacksController {
  constructor(private readonly callbacks: VendorCallbacks) {}

  /**
   * The body is the vendor's own, read by VendorCallbacks after the signature over its raw
   * bytes is checked: the schema describes the vendors' documented formats, nothing validates with it.
   */
  @Post(':vendor_id')
  @RequestBodySchema(VendorCallbackSchema)
  post(@Param('vendor_id') vendorId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(vendorId, 'POST', request, reply);
  }

  /** Meta's verification handshake, and Vonage receipts configured as GET. */
  @Get(':vendor_id')
  get(@Param('vendor_id') vendorId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(vendorId, 'GET', request, reply);
  }

  private async answer(vendorId: string, method: 'GET' | 'POST', request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await this.callbacks.handle(vendorId, callbackRequest(method, request));
    if ('text' in result) await reply.status(result.status).type('text/plain; charset=utf-8').send(result.text);
    else await reply.status(result.status).send(result.body);
  }
}

function callbackRequest(method: 'GET' | 'POST', request: FastifyRequest): CallbackRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) if (typeof value === 'string') query[name] = value;
  return {
    method,
    // As the vendor called it: the scheme a trusted proxy reports, the Host the client sent.
    url: `${request.protocol}://${request.headers.host ?? request.hostname}${request.url}`,
    headers,
    query,
    rawBody: (request as FastifyRequest & { rawBody?: Buffer }).rawBody,
    body: request.body,
  };
}

/**
 * Form bodies (Twilio, Vonage) kept as their text, within the usual body limit. Registered
 * once per HTTP application: any other route given a form reads a string and refuses it
 * as it refuses any body that is not an object.
 */
@Injectable()
export class FormBodyParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.hasContentTypeParser !== 'function' || fastify.hasContentTypeParser(FORM)) return;
    fastify.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: HTTP_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  }
}
