import { FETCH_HTTP_METHODS, WEBHOOK_HTTP_METHODS } from './definition-enums';
import { checkJsonnet, looksLikeJsonnet, readJsonnet } from './expression-fields';
import { FieldReader } from './field-reader';
import { readNodeBase } from './node-base';
import { DefinitionValidationContext } from './validation-context';
import { HttpFetchNode, HttpWebhookNode, KeyValue } from './workflow-definition';

/**
 * Webhook and fetch nodes. url, header values and query values are Jsonnet when they
 * look like it (see `looksLikeJsonnet`) and are then syntax-checked; otherwise they are
 * literals used as written, and a literal url must be an absolute http(s) URL. The
 * webhook body is always Jsonnet. A fetch node has no body: one written there is
 * ignored like any unknown field.
 */

export function validateWebhookNode(fields: FieldReader, context: DefinitionValidationContext): HttpWebhookNode | undefined {
  const base = readNodeBase(fields, 'httpapi_webhook');
  const http_method = fields.oneOf('http_method', WEBHOOK_HTTP_METHODS, true);
  const common = readHttpFields(fields, context);
  const body_content_type = fields.string('body_content_type');
  const body = readJsonnet(fields, 'body', context);
  return base && http_method && common ? { ...base, http_method, ...common, body_content_type, body } : undefined;
}

export function validateFetchNode(fields: FieldReader, context: DefinitionValidationContext): HttpFetchNode | undefined {
  const base = readNodeBase(fields, 'httpapi_fetch');
  const http_method = fields.oneOf('http_method', FETCH_HTTP_METHODS, true);
  const common = readHttpFields(fields, context);
  return base && http_method && common ? { ...base, http_method, ...common } : undefined;
}

interface HttpFields {
  readonly url: string;
  readonly headers?: readonly KeyValue[];
  readonly query_params?: readonly KeyValue[];
  readonly output_key?: string;
}

function readHttpFields(fields: FieldReader, context: DefinitionValidationContext): HttpFields | undefined {
  const url = readUrl(fields, context);
  const headers = fields.list('headers', (item, path) => readKeyValue(item, path, fields, context));
  const query_params = fields.list('query_params', (item, path) => readKeyValue(item, path, fields, context));
  const output_key = fields.string('output_key');
  return url === undefined ? undefined : { url, headers, query_params, output_key };
}

function readUrl(fields: FieldReader, context: DefinitionValidationContext): string | undefined {
  const url = fields.string('url', { required: true });
  if (url === undefined) return undefined;
  if (looksLikeJsonnet(url)) return checkJsonnet(fields, 'url', url, context);
  if (isHttpUrl(url)) return url;
  fields.report('url', 'must be an absolute http(s) URL or a Jsonnet expression');
  return undefined;
}

/** key: a non-blank literal; value: a string (may be empty), literal or Jsonnet. */
function readKeyValue(item: unknown, path: string, owner: FieldReader, context: DefinitionValidationContext): KeyValue | undefined {
  const fields = FieldReader.of(item, path, owner.errors);
  if (fields === undefined) return undefined;
  const key = fields.string('key', { required: true });
  const raw = fields.string('value');
  if (raw === undefined && !fields.has('value')) fields.report('value', 'is required');
  const value = raw !== undefined && looksLikeJsonnet(raw) ? checkJsonnet(fields, 'value', raw, context) : raw;
  return key === undefined || value === undefined ? undefined : { key, value };
}

function isHttpUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
