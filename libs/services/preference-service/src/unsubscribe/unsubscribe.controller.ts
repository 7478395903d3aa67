import { Body, Controller, Get, HttpCode, Inject, Injectable, OnModuleInit, Param, Post, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AudienceSubject, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CLOCK, Clock, EngagementLinks, HERALD_CONFIG, HTTP_BODY_LIMIT_BYTES, HeraldConfig, PreferenceLinkScope, RequestBodySchema } from '@herald/runtime';
import { Preferences } from '../preferences/preferences';
import { FORM_BODIES, FormFields, OneClickUnsubscribeSchema, PreferencePageFormSchema, formFields } from './form-bodies';
import { PREFERENCE_PAGE_CSP, PageSection, messagePage, preferencePage } from './preference-page';

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

type Opened = { readonly ok: true; readonly ws: AuthenticatedWorkspace; readonly user: AudienceSubject; readonly scope: PreferenceLinkScope } | { readonly ok: false; readonly status: 404 | 410; readonly html: string };

/**
 * The List-Unsubscribe link of an email (`{HERALD_PUBLIC_URL}/v1/unsubscribe/{token}`), no
 * Herald credential: the sealed token names one user of one workspace, the email's
 * category and tenant, and expires (EngagementLinks). A mail client's one-click POST
 * (RFC 8058: the body `List-Unsubscribe=One-Click`, form or multipart, no cookie, no
 * script) opts the user out of that category; a GET opens the hosted preference page,
 * whose form posts to `.../preferences`. Both write through Preferences, announced
 * like any preference change and answered once the engine holds it (the next trigger of
 * that category is not sent). A forged token is a 404, an expired one a 410.
 */
@Controller('v1/unsubscribe')
export class UnsubscribeController {
  private readonly links?: EngagementLinks;

  constructor(
    private readonly preferences: Preferences,
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    // Reading a token needs only the key; the public URL is for minting links.
    if (config.secretsKey) this.links = new EngagementLinks(config.secretsKey, config.publicUrl ?? '');
  }

  @Post(':token')
  @HttpCode(200)
  @RequestBodySchema(OneClickUnsubscribeSchema)
  async oneClick(@Param('token') token: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store');
    const opened = this.open(token);
    if (!opened.ok) return refuse(reply, opened.status, opened.status === 410 ? 'This unsubscribe link has expired.' : 'This unsubscribe link is not valid.');
    if (!FORM_BODIES.oneClick.parse(fieldsOf(body)).ok) return refuse(reply, 400, 'A one-click unsubscribe posts List-Unsubscribe=One-Click (RFC 8058).');
    try {
      await this.preferences.updateCategory(opened.ws, opened.user, opened.scope.tenantId, opened.scope.category, { preference: 'opt_out' });
    } catch (error) {
      if (error instanceof HeraldError) return refuse(reply, error.code === 'not_found' ? 404 : 400, `Not unsubscribed: ${reasonOf(error)}`);
      throw error;
    }
    return `Unsubscribed from ${opened.scope.category}.`;
  }

  @Get(':token')
  page(@Param('token') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.pageAnswer(token, reply);
  }

  /** The page's form: every editable category it showed is set to what its box says. */
  @Post(':token/preferences')
  @HttpCode(200)
  @RequestBodySchema(PreferencePageFormSchema)
  async save(@Param('token') token: string, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const opened = this.open(token);
    if (!opened.ok) return this.pageAnswer(token, reply);
    const form = FORM_BODIES.preferencePage.parse(fieldsOf(body));
    // Form fields are strings, which the schema takes; a refusal would be a page, as a failed save is.
    if (!form.ok) return this.pageAnswer(token, reply, `Not saved: ${form.errors.map((field) => field.message).join('; ')}`, 400);
    const subscribed = new Set([form.value.subscribed ?? []].flat());
    const categories = [...new Set([form.value.shown ?? []].flat())]
      .slice(0, 500)
      .map((category) => ({ category, choice: { preference: subscribed.has(category) ? ('opt_in' as const) : ('opt_out' as const) } }));
    try {
      if (categories.length > 0) await this.preferences.updateFull(opened.ws, opened.user, opened.scope.tenantId, { channels: null, categories });
    } catch (error) {
      if (error instanceof HeraldError) return this.pageAnswer(token, reply, `Not saved: ${reasonOf(error)}`, 400);
      throw error;
    }
    return this.pageAnswer(token, reply, 'Your preferences are saved.');
  }

  private async pageAnswer(token: string, reply: FastifyReply, note?: string, status = 200): Promise<string> {
    reply.type('text/html; charset=utf-8').header('content-security-policy', PREFERENCE_PAGE_CSP).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY');
    const opened = this.open(token);
    if (!opened.ok) {
      reply.status(opened.status);
      return opened.html;
    }
    try {
      const full = (await this.preferences.full(opened.ws, opened.user, opened.scope.tenantId)) as { sections: PageSection[] };
      reply.status(status);
      return preferencePage({ sections: full.sections, formAction: `${token}/preferences`, ...(note === undefined ? {} : { note }) });
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      reply.status(404);
      return messagePage('Preferences not found', 'There are no preferences to show for this link.');
    }
  }

  private open(token: string): Opened {
    const read = this.links?.readPreferenceToken(token, this.clock.now()) ?? { ok: false as const, reason: 'forged' as const };
    if (!read.ok) {
      return read.reason === 'expired'
        ? { ok: false, status: 410, html: messagePage('Link expired', 'This link has expired. Use the link in a newer email to change your preferences.') }
        : { ok: false, status: 404, html: messagePage('Link not valid', 'This link is not valid.') };
    }
    const { scope } = read;
    return { ok: true, scope, ws: { id: scope.workspaceId, slug: scope.workspaceSlug }, user: { type: 'user', distinct_id: scope.distinctId } };
  }
}

function reasonOf(error: HeraldError): string {
  return error.fieldErrors.length === 0 ? error.message : error.fieldErrors.map((field) => field.message).join('; ');
}

function refuse(reply: FastifyReply, status: number, text: string): string {
  reply.status(status);
  return text;
}

/** The fields of a posted form; a body of another type (JSON) has none. */
function fieldsOf(body: unknown): FormFields {
  return typeof body === 'string' ? formFields(body) : {};
}

/**
 * Form and multipart bodies kept as their text (within the usual body limit), for the
 * one-click POST and the page's form. Registered once per HTTP application: another
 * service's route given such a body reads a string and refuses it as it refuses any body
 * that is not an object.
 */
@Injectable()
export class UnsubscribeBodyParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify || typeof fastify.hasContentTypeParser !== 'function') return;
    for (const type of [FORM, MULTIPART]) {
      if (!fastify.hasContentTypeParser(type)) fastify.addContentTypeParser(type, { parseAs: 'string', bodyLimit: HTTP_BODY_LIMIT_BYTES }, (_request, text, done) => done(null, text));
    }
  }
}
