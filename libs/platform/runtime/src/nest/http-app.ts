import { maxHeaderSize } from 'node:http';
import { DynamicModule, Module, OnApplicationBootstrap } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FieldError, HeraldError, idLengthProblem, inputHygieneProblems, jsonTextNestingProblem } from '@herald/contracts';
import { ApiExceptionFilter, errorBody } from '../http/api-exception.filter';
import { ConnectionGate, httpServerOptions, limitConnections, readOpenFileLimit, resolveConnectionCaps } from '../http/connection-limits';
import { mergeOpenApi } from '../http/openapi';
import { createValidationPipe } from '../http/validation';
import { ServiceDefinition } from '../launch/service-definition';
import { createHttpMetrics } from '../metrics/metrics';
import { HeraldBusTransport } from './bus-transport/herald-bus-transport';
import { ConsumerRegistry } from './consumer-registry';
import { PlatformContext } from './platform-context';
import { PlatformModule } from './platform.module';

/** Bodies above this size are refused with 413 before they are parsed (bulk triggers stop at 800 KB). */
export const HTTP_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The router's longest path parameter, in its percent-encoded form: Node's own limit on a
 * request's head (16 KiB unless `--max-http-header-size` says otherwise; a 431 past it), so
 * the router never answers its own 414 and an id past `MAX_ID_LENGTH` is Herald's 400
 * naming the parameter instead. An id of `MAX_ID_LENGTH` characters, each percent-encoded,
 * fits many times over.
 */
const MAX_PATH_PARAMETER_BYTES = maxHeaderSize;

/** One decoder for every body: `fatal` refuses malformed UTF-8 instead of turning it into U+FFFD; the BOM is kept, as `Buffer#toString` keeps it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One Nest application on Fastify serving one HTTP port: the given service modules
 * plus the platform (health, metrics). Each API (`{base_url}`, `{management_url}`)
 * is one such application; the embedded mode runs two of them in one process.
 */
/**
 * `application/json` (any charset) with the raw bytes kept on `request.rawBody`: the
 * SDK signature is an MD5 of exactly those bytes. An empty body parses to `undefined`
 * instead of failing: the SuprSend SDKs send `Content-Type: application/json` on
 * body-less GETs and DELETEs. Prototype poisoning is refused as by Fastify's default.
 * Text nested past the input limits is refused before it is parsed, and bytes that are
 * not UTF-8 are refused (a 400), never read as U+FFFD and stored as if sent: the strict
 * decode is the one decode of the body, at the cost of the lenient one it replaces.
 */
function registerJsonBodyParser(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: HTTP_BODY_LIMIT_BYTES }, (request, body, done) => {
    const raw = body as Buffer;
    (request as unknown as { rawBody: Buffer }).rawBody = raw;
    if (raw.length === 0) {
      done(null, undefined);
      return;
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(raw);
    } catch {
      done(HeraldError.validation([{ path: '', message: 'is not valid UTF-8: the body must be JSON encoded as UTF-8' }]), undefined);
      return;
    }
    // Nesting and key counts before the parse: JSON.parse spends most of a second on a megabyte of `[[[[`.
    const tooDeep = jsonTextNestingProblem(text);
    if (tooDeep) {
      done(HeraldError.validation([tooDeep]), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

/**
 * The input-hygiene rule of every route, before guards, pipes and handlers see the
 * request: path parameters, the query and the parsed body must hold nothing Postgres
 * cannot store (NUL, lone surrogates, in values and keys) and stay within the nesting
 * and key-count limits (`INPUT_LIMITS`). The check is one iterative walk, so a
 * 100,000-deep body is a 400 naming where, not a stack overflow further on. Every path
 * parameter is an id (a distinct_id, an object id, a slug…) and holds at most
 * `MAX_ID_LENGTH` characters, the limit bodies apply to the same ids.
 */
function refuseUnstorableInput(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preValidation', (request, reply, done) => {
      const problems = [
        ...pathIdProblems(request.params),
        ...inputHygieneProblems(request.params ?? {}),
        ...inputHygieneProblems(request.query ?? {}),
        ...inputHygieneProblems(request.body),
      ];
      if (problems.length === 0) {
        done();
        return;
      }
      void reply.status(400).send(errorBody(HeraldError.validation(problems)));
    });
}

/** Path parameters longer than an id may be; the wildcard (`*`, a static file's path) is no id. */
function pathIdProblems(params: unknown): FieldError[] {
  if (typeof params !== 'object' || params === null) return [];
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(params)) {
    const problem = name === '*' || typeof value !== 'string' ? undefined : idLengthProblem(value);
    if (problem) problems.push({ path: name, message: problem });
  }
  return problems;
}

/** `GET /openapi.json`: the merged description of the services this application hosts, unauthenticated like public docs. */
function serveOpenApi(app: NestFastifyApplication, api: 'public' | 'management' | 'internal', services: readonly ServiceDefinition[]): void {
  const fragments = services.flatMap((service) => (service.openApi ? [service.openApi] : []));
  if (fragments.length === 0) return;
  const document = mergeOpenApi(api === 'management' ? 'management' : 'public', fragments);
  app
    .getHttpAdapter()
    .getInstance()
    .get('/openapi.json', (_request, reply) => {
      void reply.send(document);
    });
}

/**
 * Starts the bus transport once every module has bootstrapped (the root module's hooks
 * run last), as consumers subscribing in their own `onApplicationBootstrap` do, so an
 * application's `init()` and `listen()` start it alike.
 */
class BusConsumersStart implements OnApplicationBootstrap {
  app?: NestFastifyApplication;

  async onApplicationBootstrap(): Promise<void> {
    await this.app?.startAllMicroservices();
  }
}

export async function createHttpApp(
  api: 'public' | 'management' | 'internal',
  context: PlatformContext,
  services: readonly ServiceDefinition[],
): Promise<NestFastifyApplication> {
  const serviceModules = services.map((service) => service.module());
  const consumersStart = new BusConsumersStart();
  @Module({ providers: [{ provide: BusConsumersStart, useValue: consumersStart }] })
  class HttpAppRoot {}

  const root: DynamicModule = {
    module: HttpAppRoot,
    imports: [PlatformModule.forRoot(context), ...serviceModules],
  };
  const limits = context.config.http;
  const adapter = new FastifyAdapter({
    // Every path of the interface ends in a slash; accept both spellings.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_BYTES },
    bodyLimit: HTTP_BODY_LIMIT_BYTES,
    // Whose X-Forwarded-For names the client (request.ip, which the auth-failure limits count).
    trustProxy: typeof context.config.trustProxy === 'boolean' ? context.config.trustProxy : [...context.config.trustProxy],
    // Fastify's defaults hold a connection forever (connectionTimeout and requestTimeout 0).
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: httpServerOptions(limits),
  });
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: context.logger,
    abortOnError: false,
    // Our own JSON parser below keeps the raw bytes (SDK signatures cover them).
    bodyParser: false,
  });
  // Consumers declared with @ConsumerOf: a hybrid application whose event handlers subscribe through the bus port.
  // The HTTP pipes and filters are not theirs (inheritAppConfig false).
  app.connectMicroservice({ strategy: new HeraldBusTransport(app.get(ConsumerRegistry)) }, { inheritAppConfig: false });
  consumersStart.app = app;
  const connections = new ConnectionGate(resolveConnectionCaps(limits, readOpenFileLimit()));
  limitConnections(app.getHttpServer(), limits, connections);
  context.health.register(`http_connections_${api}`, async () => {
    if (connections.full) throw new Error(`${connections.open} connections open: the cap of ${connections.caps.total} is reached`);
  });
  context.logger.info('HTTP connection caps', { api, max_connections: connections.caps.total, max_connections_per_address: connections.caps.perAddress });
  registerJsonBodyParser(app);
  refuseUnstorableInput(app);
  serveOpenApi(app, api, services);
  app.useGlobalFilters(new ApiExceptionFilter(context.logger));
  app.useGlobalPipes(createValidationPipe());
  const httpMetrics = createHttpMetrics(context.metrics, api);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onResponse', (request, reply, done) => {
      httpMetrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  return app;
}
