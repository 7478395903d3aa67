import { createReadStream } from 'node:fs';
import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { CONSOLE_DIST, consoleFileFor } from './console-files';
import { ConsoleSettings } from './console-settings';
import { PublicRoute } from '../auth/roles';

/**
 * The console's own scripts and styles only, no framing; it may call any http(s) origin,
 * since the notification API's address is the operator's to choose at sign-in.
 */
const CONSOLE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' http: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * The frame an email preview is shown in (`mail-frame.html`): an email needs inline styles
 * and remote images, which the console's own policy refuses (and a srcdoc frame inherits
 * its parent's policy). No script but the frame's own, embeddable by the console only; the
 * email goes into an iframe inside it, sandboxed without scripts (it inherits this policy).
 */
const MAIL_FRAME_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline' https:; img-src http: https: data:; font-src http: https: data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/**
 * The operator console (apps/console): static files under `/console/`, any other path of
 * it answered with its index.html (the single-page app routes in the browser). No
 * authentication here: the files hold no data; the pages call the public APIs with the
 * operator's credentials.
 */
@Controller('console')
export class ConsoleController {
  constructor(private readonly settings: ConsoleSettings) {}

  /** The installation as the sign-in page needs it: where the notification API is. */
  @PublicRoute()
  @Get('config.json')
  config(@Res() reply: FastifyReply): void {
    void reply.header('cache-control', 'no-store').send({ base_url: this.settings.baseUrl });
  }

  @PublicRoute()
  @Get()
  index(@Res() reply: FastifyReply): void {
    this.serve('', reply);
  }

  @PublicRoute()
  @Get('*')
  file(@Param('*') path: string, @Res() reply: FastifyReply): void {
    this.serve(path ?? '', reply);
  }

  private serve(path: string, reply: FastifyReply): void {
    const found = consoleFileFor(CONSOLE_DIST, path);
    if (found.kind === 'not_built') throw new HeraldError('unavailable', 'the console is not built: npm run build:console');
    if (found.kind === 'not_found') throw HeraldError.notFound(`console: ${found.reason}`);
    void reply
      .type(found.contentType)
      .header('cache-control', found.cacheControl)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', found.path.endsWith('mail-frame.html') ? MAIL_FRAME_CSP : CONSOLE_CSP)
      .header('referrer-policy', 'no-referrer')
      .send(createReadStream(found.path));
  }
}
