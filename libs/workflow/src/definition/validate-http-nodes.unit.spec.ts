import { looksLikeJsonnet } from './expression-fields';
import { BrokenCase, expectErrors, expectValid, fetchNode, webhook, withNode } from './testing/definition-fixtures';

const N = 'tree.nodes[0]';
const JSONNET = 'invalid Jsonnet: unexpected: "}"';
const NOT_URL = 'must be an absolute http(s) URL or a Jsonnet expression';

describe('webhook node', () => {
  const cases: readonly BrokenCase[] = [
    ['http_method is required', withNode(webhook({ http_method: undefined })), `${N}.http_method: is required`],
    ['http_method enum', withNode(webhook({ http_method: 'HEAD' })), `${N}.http_method: must be one of GET, PUT, POST, PATCH, DELETE`],
    ['http_method is upper case', withNode(webhook({ http_method: 'post' })), `${N}.http_method: must be one of GET, PUT, POST, PATCH, DELETE`],
    ['url is required', withNode(webhook({ url: undefined })), `${N}.url: is required`],
    ['a literal url is a URL', withNode(webhook({ url: 'api.example.com/webhook' })), `${N}.url: ${NOT_URL}`],
    ['a literal url is http(s)', withNode(webhook({ url: 'ftp://files.example.com/in' })), `${N}.url: ${NOT_URL}`],
    ['a literal url has no blanks', withNode(webhook({ url: 'https://api.example.com/a b' })), `${N}.url: ${NOT_URL}`],
    ['an unquoted literal joined to Jsonnet is neither', withNode(webhook({ url: 'https://api.example.com/?id=" + data.id' })), `${N}.url: ${NOT_URL}`],
    ['a Jsonnet url parses', withNode(webhook({ url: '"https://api.example.com/" + data.id}}}' })), `${N}.url: ${JSONNET}`],
    ['headers must be an array', withNode(webhook({ headers: { Authorization: 'x' } })), `${N}.headers: must be an array`],
    ['a header is an object', withNode(webhook({ headers: ['Authorization: x'] })), `${N}.headers[0]: must be an object`],
    ['a header key is required', withNode(webhook({ headers: [{ value: 'x' }] })), `${N}.headers[0].key: is required`],
    ['a header value is required', withNode(webhook({ headers: [{ key: 'X-Id' }] })), `${N}.headers[0].value: is required`],
    ['a header value is a string', withNode(webhook({ headers: [{ key: 'X-Id', value: 5 }] })), `${N}.headers[0].value: must be a string`],
    ['a Jsonnet header value parses', withNode(webhook({ headers: [{ key: 'X-Id', value: 'data.id}}}' }] })), `${N}.headers[0].value: ${JSONNET}`],
    ['a Jsonnet query value parses', withNode(webhook({ query_params: [{ key: 'id', value: 'std.toString(data.id)}}}' }] })), `${N}.query_params[0].value: ${JSONNET}`],
    ['a query key is required', withNode(webhook({ query_params: [{ key: '', value: 'x' }] })), `${N}.query_params[0].key: must not be empty`],
    ['body is Jsonnet', withNode(webhook({ body: '{ a: 1 }}}' })), `${N}.body: ${JSONNET}`],
    ['body is a string', withNode(webhook({ body: { a: 1 } })), `${N}.body: must be a string`],
    ['body_content_type is a string', withNode(webhook({ body_content_type: 1 })), `${N}.body_content_type: must be a string`],
    ['output_key is a string', withNode(webhook({ output_key: ['crm'] })), `${N}.output_key: must be a string`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each([
    ['a literal url with a query, + and % escapes', { url: 'https://api.example.com/hook?q=a+b%20c&x=1' }],
    ['a literal http url with a port', { url: 'http://localhost:8080/hook' }],
    ['a Jsonnet url from a string literal', { url: '"https://api.example.com/hook"' }],
    ['a url built with std', { url: 'std.format("https://api.example.com/%s", data.id)' }],
    ['a literal header value with + and = (a token)', { headers: [{ key: 'Authorization', value: 'Bearer abc+def==' }] }],
    ['a literal header value that mentions data', { headers: [{ key: 'X-Source', value: 'database' }] }],
    ['an empty header value', { headers: [{ key: 'X-Empty', value: '' }] }],
    ['no body', { body: undefined, body_content_type: undefined }],
  ])('accepts %s', (_case, over) => expectValid(withNode(webhook(over))));
});

describe('fetch node', () => {
  const cases: readonly BrokenCase[] = [
    ['http_method is required', withNode(fetchNode({ http_method: undefined })), `${N}.http_method: is required`],
    ['http_method is GET', withNode(fetchNode({ http_method: 'POST' })), `${N}.http_method: must be one of GET`],
    ['url is required', withNode(fetchNode({ url: undefined })), `${N}.url: is required`],
    ['a literal url is a URL', withNode(fetchNode({ url: 'users/1' })), `${N}.url: ${NOT_URL}`],
    ['a Jsonnet url parses', withNode(fetchNode({ url: 'data.url}}}' })), `${N}.url: ${JSONNET}`],
    ['a Jsonnet header value parses', withNode(fetchNode({ headers: [{ key: 'X', value: '"a" + }}}' }] })), `${N}.headers[0].value: ${JSONNET}`],
    ['a Jsonnet query value parses', withNode(fetchNode({ query_params: [{ key: 'id', value: 'data["$recipient"].id}}}' }] })), `${N}.query_params[0].value: ${JSONNET}`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it('ignores a body, which a fetch node does not have', () => expectValid(withNode(fetchNode({ body: '}}}' }))));
});

describe('looksLikeJsonnet', () => {
  it.each(['"https://x.test/" + data.id', "'a'", '@"raw"', '|||\n  text\n|||', '{ a: 1 }', '[1]', '(1)', 'std.join(",", data.ids)', 'data.id', 'data["$recipient"].id', 'local x = 1; x', 'if data.a then "x" else "y"', '  data.id'])(
    'treats %j as Jsonnet',
    (value) => expect(looksLikeJsonnet(value)).toBe(true),
  );

  it.each(['https://x.test/?q=a+b%20c', 'application/json', 'Bearer abc+def==', 'database', 'datacenter-1', '42', ''])('treats %j as a literal', (value) =>
    expect(looksLikeJsonnet(value)).toBe(false),
  );
});
