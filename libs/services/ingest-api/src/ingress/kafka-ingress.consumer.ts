import { Controller, Inject } from '@nestjs/common';
import { FieldError, HeraldError, ParseResult, TOPICS, deterministicUuid, inputHygieneProblems, jsonTextNestingProblem } from '@herald/contracts';
import { IncomingMessage, MessageOutcome, classifyFailure } from '@herald/bus';
import {
  AuthenticatedWorkspace,
  ConsumerOf,
  ConsumerRegistry,
  WORKSPACE_CREDENTIALS,
  WorkspaceCredentials,
} from '@herald/runtime';
import { Acceptance } from '../acceptance/acceptance';
import { INGRESS_SIGNATURE_HEADER, INGRESS_WORKSPACE_KEY_HEADER, ingressSignatureMatches } from './ingress-signature';
import { isIdentityEvent, validateEvent, validateIdentityEvent, validateTrigger } from '../validation';
import { MAX_INGEST_BODY_BYTES } from '../http/request-body';

export const INGRESS_GROUP_ID = 'herald.ingest.ingress';

/** A message that can never be accepted: it goes to the dead-letter topic with these errors. */
class Rejected extends Error {
  constructor(
    readonly reason: string,
    readonly errors: readonly FieldError[],
  ) {
    super(reason);
  }
}

/**
 * The public Kafka ingress: client backends publish trigger and event bodies straight
 * to `notify.ingress.trigger.v1` / `notify.ingress.event.v1` (identity events, the
 * SDKs' user profile changes, on either: one published before a trigger on the same
 * topic and key is seen by the trigger's run), proving their workspace
 * with a signature header. Each message is validated exactly like the REST body and
 * accepted through the same path (idempotency, fan-out). What can never be accepted
 * (bad signature, invalid body, unknown workflow) goes to the dead-letter topic with
 * the reasons; a bus or database failure is retried. The message id is derived from the
 * message's place in the topic, so a redelivery republishes the same ids.
 */
@Controller()
export class KafkaIngressConsumer {
  constructor(
    private readonly consumers: ConsumerRegistry,
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
    private readonly acceptance: Acceptance,
  ) {}

  /**
   * A partition's messages at once: those of one Kafka key in order (the README promises
   * a key's order), different keys side by side, so that their acceptances' publishes
   * share produce requests. One by one, a produce request carried about 3 triggers
   * (13,668 requests for 40,000 triggers in bench/flow). A message that fails fails the
   * batch once every key has stopped, and the messages of its key after it wait; the
   * batch comes again (a split one by one, unless an outage) and what was accepted is
   * not accepted twice (the message id comes from the message's place in the topic).
   */
  // Raw messages: the body is validated here, as at the HTTP edge, and what can never be accepted is dead-lettered with its field errors.
  @ConsumerOf({ groupId: INGRESS_GROUP_ID, topics: [TOPICS.ingressTrigger.name, TOPICS.ingressEvent.name], batch: true })
  async handleBatch(messages: readonly IncomingMessage[]): Promise<MessageOutcome[]> {
    const outcomes: MessageOutcome[] = new Array<MessageOutcome>(messages.length);
    const byKey = new Map<string, number[]>();
    messages.forEach((message, index) => {
      const indexes = byKey.get(message.key);
      if (indexes === undefined) byKey.set(message.key, [index]);
      else indexes.push(index);
    });
    const settled = await Promise.allSettled(
      [...byKey.values()].map(async (indexes) => {
        for (const index of indexes) outcomes[index] = await this.handle(messages[index]);
      }),
    );
    const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return outcomes;
  }

  private async handle(message: IncomingMessage): Promise<MessageOutcome> {
    try {
      const workspace = await this.authenticate(message);
      const body = parseBody(message.value);
      const messageId = deterministicUuid('ingress', message.topic, String(message.partition), message.offset, String(message.timestamp));
      if (isIdentityEvent(body)) {
        // On either topic; it answers (and the key's next message is taken) once the engine
        // holds the profile, so a trigger after it on the same topic and key sees it.
        await this.acceptance.acceptIdentityEvent(workspace, valid(validateIdentityEvent(body)), 'kafka', messageId);
      } else if (message.topic === TOPICS.ingressTrigger.name) {
        await this.acceptance.acceptTrigger(workspace, valid(validateTrigger(body)), 'kafka', messageId);
      } else {
        await this.acceptance.acceptEvent(workspace, valid(validateEvent(body)), 'kafka', messageId);
      }
      return 'handled';
    } catch (error) {
      const rejection = asRejection(error);
      // Herald's trouble: retried, within the consumer registry's bound unless it is an outage.
      if (rejection === undefined) throw error;
      return this.consumers.deadLetter(INGRESS_GROUP_ID, message, rejection.reason, rejection.errors);
    }
  }

  private async authenticate(message: IncomingMessage): Promise<AuthenticatedWorkspace> {
    const key = message.headers[INGRESS_WORKSPACE_KEY_HEADER];
    const signature = message.headers[INGRESS_SIGNATURE_HEADER];
    if (!key || !signature) {
      throw new Rejected('authentication failed', [
        { path: `headers.${!key ? INGRESS_WORKSPACE_KEY_HEADER : INGRESS_SIGNATURE_HEADER}`, message: 'is required' },
      ]);
    }
    const candidates = await this.credentials.secretsOfWorkspaceKey(key);
    const match = candidates.find((candidate) => ingressSignatureMatches(message.value, signature, candidate.secret));
    if (match === undefined) {
      throw new Rejected('authentication failed', [
        {
          path: `headers.${candidates.length === 0 ? INGRESS_WORKSPACE_KEY_HEADER : INGRESS_SIGNATURE_HEADER}`,
          message: candidates.length === 0 ? 'no workspace has this workspace key' : 'does not match the message value',
        },
      ]);
    }
    return match.workspace;
  }
}

function parseBody(value: Buffer): unknown {
  if (value.length > MAX_INGEST_BODY_BYTES) throw new Rejected('payload too large', [{ path: '', message: `at most ${MAX_INGEST_BODY_BYTES} bytes` }]);
  const text = value.toString('utf8');
  // The input limits on nesting and key counts, checked on the text before parsing it (as at the HTTP edge).
  const tooDeep = jsonTextNestingProblem(text);
  if (tooDeep) throw new Rejected('invalid payload', [tooDeep]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new Rejected('invalid JSON', [{ path: '', message: (error as Error).message }]);
  }
  if (Array.isArray(body)) throw new Rejected('invalid payload', [{ path: '', message: 'one trigger or event per message; publish bulk as separate messages' }]);
  // The input-hygiene rule of the HTTP edge (NUL, lone surrogates, depth, key counts), before validation walks the body.
  const problems = inputHygieneProblems(body);
  if (problems.length > 0) throw new Rejected('invalid payload', problems);
  return body;
}

function valid<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Rejected('invalid payload', result.errors);
  return result.value;
}

/** A client's mistake (dead-letter it) as opposed to Herald's trouble (retry it). */
function asRejection(error: unknown): Rejected | undefined {
  if (error instanceof Rejected) return error;
  // The bus's classifier decides what passes with time (an outage, a saturated database, a concurrent claim of the key).
  if (error instanceof HeraldError && classifyFailure(error).kind !== 'transient') {
    return new Rejected(error.code === 'validation_error' ? 'invalid payload' : error.message, error.fieldErrors.length > 0 ? error.fieldErrors : [{ path: '', message: error.message }]);
  }
  return undefined;
}
