/**
 * The differential corpus of jq filters Herald supports: each filter is evaluated by the
 * port and by Debian's `/usr/bin/jq` (the oracle), and their outputs must be equal.
 * Shared by `jq-engine.int.spec.ts` and the benchmark (`../../bench/expressions.bench.ts`).
 */

export const CORPUS_INPUT = {
  order: {
    id: 'ord_42',
    total: 129.5,
    currency: 'EUR',
    placed_at: '2024-03-05T10:20:30Z',
    items: [
      { sku: 'A1', qty: 2, price: 10 },
      { sku: 'B2', qty: 1, price: 109.5 },
      { sku: 'C3', qty: 3, price: 0.25 },
    ],
  },
  user: { name: 'Ada Lovelace', email: 'Ada@Example.COM', tags: ['vip', 'beta'], age: '36' },
  count: 3,
  flag: false,
  nothing: null,
  delay_minutes: 15,
  events: [
    { type: 'comment', at: 1700000000 },
    { type: 'like', at: 1700000300 },
    { type: 'comment', at: 1700000600 },
  ],
  $recipient: { distinct_id: 'r-1', timezone: 'Europe/Paris' },
  $batched_events_count: 3,
} as const;

export const CORPUS_VARIABLES = {
  recipient: { distinct_id: 'r-1', name: 'Grace', timezone: 'Europe/Paris', properties: { plan: 'pro', digest: '1h' } },
  actor: { distinct_id: 'a-9', name: 'Linus' },
  tenant: { tenant_id: 'acme', name: 'Acme Inc.', properties: { tier: 2 } },
} as const;

export interface CorpusCase {
  readonly filter: string;
  /** Another input than CORPUS_INPUT. */
  readonly input?: unknown;
  /**
   * The error message is the filter's own (error/1), so it must be the same in both.
   * Messages of jq's built-in errors were reworded in jq 1.7 (1.6: `Cannot index string
   * with string "x"`, 1.8: `Cannot index string with string ("x")`): for those only
   * "a runtime error" is compared.
   */
  readonly sameMessage?: true;
}

export const JQ_CORPUS: readonly CorpusCase[] = [
  // field access, optional access, defaults
  { filter: '.order.id' },
  { filter: '.order.missing' },
  { filter: '.missing.deep.path' },
  { filter: '.user.tags[5]' },
  { filter: '.order.items[0].sku' },
  { filter: '.order.items[-1].price' },
  { filter: '.["$recipient"].timezone' },
  { filter: '.user.name.first?' },
  { filter: '.user.name.first' },
  { filter: '.nothing[]?' },
  { filter: '.user.nickname // "friend"' },
  { filter: '.flag // "default"' },
  { filter: '.nothing // .count' },
  { filter: '(.order.items[] | select(.qty > 5) | .sku) // "none"' },
  // arrays, map, select, reduce
  { filter: '.order.items[] | .sku' },
  { filter: '[.order.items[] | .sku]' },
  { filter: '.order.items | map(.qty * .price)' },
  { filter: '.order.items | map(select(.qty > 1)) | length' },
  { filter: '[.order.items[] | select(.price >= 100) | .sku]' },
  { filter: '.order.items | map(.price) | add' },
  { filter: '.order.items | sort_by(.price) | reverse | .[0].sku' },
  { filter: '.order.items | max_by(.qty).sku' },
  { filter: 'reduce .order.items[] as $i (0; . + $i.qty * $i.price)' },
  { filter: '[.events[] | .type] | unique' },
  { filter: '.events | group_by(.type) | map({type: .[0].type, n: length})' },
  { filter: '[limit(3; range(0; 10))]' },
  { filter: 'first(.order.items[] | select(.qty == 1)) | .sku' },
  { filter: 'any(.user.tags[]; . == "vip")' },
  { filter: '.order.items | all(.qty > 0)' },
  { filter: '[.order.items[].qty] | min, max' },
  { filter: '.user.tags | index("beta")' },
  { filter: '[paths(type == "number")] | length' },
  { filter: '.order | to_entries | map(.key)' },
  { filter: '.order.items | map({(.sku): .qty}) | add' },
  { filter: '.order | del(.items) | keys' },
  { filter: '{id: .order.id, n: (.order.items | length), who: $recipient.name}' },
  // strings, interpolation, conversions
  { filter: '"Order \\(.order.id) for \\(.user.name)"' },
  { filter: '"\\(.count) items, total \\(.order.total) \\(.order.currency)"' },
  { filter: '"\\(.order.total * 100 | floor)"' },
  { filter: '.user.age | tonumber + 1' },
  { filter: '.user.name | tonumber? // "not a number"' },
  { filter: '.count | tostring' },
  { filter: '.order.total | tostring' },
  { filter: '.order.items | tostring' },
  { filter: '[1, "1", null, true, [1], {"a": 1}] | map(tostring)' },
  { filter: '["12", "3.5", "-1e3", 7] | map(tonumber)' },
  { filter: '.user.tags | length' },
  { filter: '.user.name | length' },
  { filter: '[.nothing, .count, -5, {"a":1,"b":2}] | map(length)' },
  { filter: '.order | keys' },
  { filter: '.order | has("items"), has("nope")' },
  { filter: '.user.tags | has(1)' },
  { filter: '.user.email | test("@example\\\\.com$"; "i")' },
  { filter: '.user.email | test("@example\\\\.com$")' },
  { filter: '.user.email | capture("(?<local>[^@]+)@(?<domain>.+)")' },
  { filter: '.user.name | sub("Ada"; "A.")' },
  { filter: '.user.name | gsub("[aeiou]"; "_")' },
  { filter: '[.user.email | match("[A-Z]"; "g") | .string]' },
  { filter: '.user.email | ascii_downcase' },
  { filter: '.user.email | ascii_upcase | ltrimstr("ADA@")' },
  { filter: '.user.name | split(" ") | .[0]' },
  { filter: '.user.name | split(" +"; null)' },
  { filter: '.user.tags | join(",")' },
  { filter: '.user.tags | map(ascii_upcase) | join(" | ")' },
  { filter: '.user.email | startswith("Ada"), endswith(".org")' },
  { filter: '.order.placed_at | .[0:10]' },
  { filter: '.user.name | @base64, @uri, @html' },
  { filter: '.user | @json' },
  { filter: '.user.tags | @csv' },
  { filter: '.user.tags | contains(["vip"])' },
  { filter: '"a,b,,c" | split(",") | map(select(length > 0))' },
  { filter: '.user.name | ascii_downcase | explode | implode' },
  // arithmetic and comparisons
  { filter: '.count * 60 + 5' },
  { filter: '.order.total / 2' },
  { filter: '1 / 3' },
  { filter: '.count % 2 == 1' },
  { filter: '.order.total | floor, sqrt' },
  { filter: '.count > 2 and .flag == false' },
  { filter: '.count >= 3, .count < 3, .count != 3, (.nothing | not)' },
  { filter: '[null, false, 0, "", [], {}] | map(if . then "truthy" else "falsy" end)' },
  { filter: '"abc" < "abd", [1,2] < [1,3], {} > [], null < false' },
  { filter: '.user.name + " <" + .user.email + ">"' },
  { filter: '{a: 1} + {b: 2} | . * {a: {x: 1}}' },
  { filter: '[1,2,3,2] - [2]' },
  // conditionals, variables, definitions, errors
  { filter: 'if .count > 2 then "many" else "few" end' },
  { filter: 'if any(.user.tags[]; . == "vip") then "priority" elif .count > 0 then "normal" else "low" end' },
  { filter: '.count as $n | [range($n)] | map(. * $n)' },
  { filter: 'def double: . * 2; .count | double | double' },
  { filter: 'try error("custom failure") catch .' },
  { filter: 'try (.user.name | .x) catch "caught"' },
  { filter: '.user.name | .x' },
  { filter: 'error("custom failure")', sameMessage: true },
  { filter: '.order.id, error("after one output")', sameMessage: true },
  { filter: 'if .count > 2 then error("too many: \\(.count)") else . end', sameMessage: true },
  { filter: '[.[] | numbers]' },
  { filter: 'type, (.order | type), (.user.tags | type)' },
  { filter: 'empty' },
  // dates
  { filter: '.order.placed_at | fromdate' },
  { filter: '.order.placed_at | fromdateiso8601 + 3600 | todate' },
  { filter: '(.order.placed_at | fromdate) + .delay_minutes * 60 | todateiso8601' },
  { filter: '.order.placed_at | strptime("%Y-%m-%dT%H:%M:%SZ")' },
  { filter: '.order.placed_at | strptime("%Y-%m-%dT%H:%M:%SZ") | mktime' },
  { filter: '.order.placed_at | strptime("%Y-%m-%dT%H:%M:%SZ") | strftime("%A, %B %d %Y at %H:%M")' },
  { filter: '1700000000 | strftime("%Y-%m-%d %H:%M:%S")' },
  { filter: '1700000000 | todate' },
  { filter: '1700000000 | gmtime' },
  { filter: '1700000000.75 | gmtime | mktime' },
  { filter: '1700000000 | gmtime | todate' },
  { filter: '.events | map(.at | todate)' },
  { filter: '(.events | map(.at) | max) - (.events | map(.at) | min)' },
  { filter: 'now | type' },
  { filter: 'now > 1700000000' },
  { filter: '(now | floor) - (now | floor) < 2' },
  { filter: '.order.placed_at | fromdate | . > now' },
  { filter: '"2024-02-29T23:59:59Z" | fromdate + 1 | todate' },
  { filter: '"not a date" | fromdate' },
  // the $recipient / $actor / $tenant variables
  { filter: '$recipient.name' },
  { filter: '$recipient.properties.plan // "free"' },
  { filter: '$recipient.properties.missing // "fallback"' },
  { filter: '$actor.distinct_id' },
  { filter: '$tenant.tenant_id, $tenant.properties.tier' },
  { filter: '"\\($recipient.name), \\($actor.name) mentioned you in \\($tenant.name)"' },
  { filter: 'if $recipient.properties.plan == "pro" then "\\($recipient.properties.digest)" else "1d" end' },
  { filter: '[$recipient, $actor] | map(.distinct_id) | join("/")' },
  // the process environment must not leak (the oracle runs with an empty environment)
  { filter: 'env' },
  { filter: '$ENV' },
  { filter: 'env.PATH' },
  { filter: '$ENV.HOME // "no home"' },
  { filter: 'env | length' },
  // syntax and compile errors
  { filter: '.a |' },
  { filter: 'map(' },
  { filter: '.foo bar' },
  { filter: '$undefined_variable' },
  { filter: 'no_such_function(1)' },
  { filter: '"unterminated' },
];
