import { Inject, Injectable } from '@nestjs/common';
import {
  DefinitionChanged,
  FieldError,
  PayloadValidator,
  TOPICS,
  compilePayloadSchema,
  definitionAppliedMessage,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { PayloadSchemaLink, PayloadSchemaRepository } from './payload-schema.repository';

interface AnnouncedEventLink {
  readonly payload_schema: PayloadSchemaLink | null;
}

interface AnnouncedSchema {
  readonly version_no: number;
  readonly json_schema: NonNullable<unknown>;
}

const COMPILED_CAPACITY = 5_000;

/**
 * The JSON Schemas of trigger data and event properties, from `notify.definition.changed.v1`
 * (kind `schema`; kind `event_schema` links one to an event name), kept in `ingest`'s
 * tables by the repository, and their compiled validators. A committed version never
 * changes, so a compiled one is kept (up to a bound) by workspace, slug and version.
 */
@Injectable()
export class PayloadSchemas {
  private readonly compiled = new Map<string, PayloadValidator | null>();

  constructor(
    private readonly stored: PayloadSchemaRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * What is wrong with `data` by the linked schema, each by its path under `root`. A
   * schema this read model does not have (yet) checks nothing: management refuses a
   * link to a schema that is not live, so that only happens while it catches up.
   */
  async problems(workspaceId: string, link: PayloadSchemaLink, data: unknown, root = 'data'): Promise<FieldError[]> {
    const versionNo = link.version_no ?? (await this.stored.liveVersionNo(workspaceId, link.schema));
    if (versionNo === undefined) {
      this.logger.warn('trigger data not checked: its linked schema is not in the read model yet', { workspace_id: workspaceId, schema: link.schema });
      return [];
    }
    const validate = await this.validator(workspaceId, link.schema, versionNo);
    return validate ? validate(data, root) : [];
  }

  /** The schema linked to an event name, if any. */
  eventLink(workspaceId: string, event: string): Promise<PayloadSchemaLink | null> {
    return this.stored.eventLink(workspaceId, event);
  }

  private async validator(workspaceId: string, slug: string, versionNo: number): Promise<PayloadValidator | null> {
    const key = `${workspaceId}\u0000${slug}\u0000${versionNo}`;
    const known = this.compiled.get(key);
    if (known !== undefined) return known;
    const jsonSchema = await this.stored.jsonSchemaOf(workspaceId, slug, versionNo);
    if (jsonSchema === undefined) return null;
    const compiled = compilePayloadSchema(jsonSchema);
    // Management compiled it before committing: a failure here is a bug, logged, and checks nothing.
    if (!compiled.ok) this.logger.error('a committed payload schema does not compile', { workspace_id: workspaceId, schema: slug, version_no: versionNo, errors: compiled.errors });
    const validate = compiled.ok ? compiled.validate : null;
    if (this.compiled.size >= COMPILED_CAPACITY) this.compiled.clear();
    this.compiled.set(key, validate);
    return validate;
  }

  /** An `event_schema` change: a schema linked to an event name (IngestDefinitionChangesConsumer). */
  async applyEventLink(change: DefinitionChanged): Promise<void> {
    const link = (change.document as AnnouncedEventLink | undefined)?.payload_schema ?? null;
    await this.stored.saveEventLink({ workspaceId: change.workspace_id, event: change.id, payloadSchema: link, version: change.version });
    this.logger.info('event schema link read model updated', { workspace_id: change.workspace_id, event: change.id, version: change.version });
    await this.announceApplied(change);
  }

  /** A `schema` change of `notify.definition.changed.v1` (IngestDefinitionChangesConsumer). */
  async apply(change: DefinitionChanged): Promise<void> {
    if (change.change === 'deleted') {
      await this.stored.removeLive(change.workspace_id, change.id, change.version);
    } else {
      const document = change.document as AnnouncedSchema;
      await this.stored.saveLive({ workspaceId: change.workspace_id, slug: change.id, versionNo: document.version_no, jsonSchema: document.json_schema }, change.version);
    }
    this.logger.info('payload schema read model updated', { workspace_id: change.workspace_id, schema: change.id, change: change.change, version: change.version });
    await this.announceApplied(change);
  }

  /** Management's commit waits for this before it answers, so the next trigger or event is checked against it. */
  private async announceApplied(change: DefinitionChanged): Promise<void> {
    const applied = { service: 'ingest-api', workspace_id: change.workspace_id, kind: change.kind, id: change.id, version: change.version };
    await this.bus.publish(TOPICS.definitionApplied.name, [definitionAppliedMessage(applied, this.clock.now())]);
  }
}
