import {
  CategoryDocument,
  DEFAULT_PREFERENCES,
  EDIT_POLICIES,
  MANDATORY_CHANNELS,
  PREFERENCE_CHANNELS,
  ROOT_CATEGORIES,
  SCHEDULE_FREQUENCIES,
  VALUE_TYPES,
  WEEKDAYS,
} from './category-document';

export interface CategoryValidation {
  /** Valid: the document with all three roots present, in order. Invalid: the input as sent (kept as a draft). */
  readonly document: CategoryDocument;
  readonly errors: string[];
}

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** What GET answers around the document: a client may send it back as it got it. */
const VIEW_FIELDS = new Set(['$schema', 'version_no', 'status', 'validation_result', 'commit_message', 'committed_at']);
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

type Json = Record<string, unknown>;

/**
 * Checks a preference category document and names the path of every problem, e.g.
 * `root_categories[1].sections[0].categories[2].default_preference: must be one of …`.
 * Pure: what it needs to know arrives as arguments.
 */
export function validateCategoryDocument(input: unknown): CategoryValidation {
  const errors: string[] = [];
  const fail = (path: string, message: string): void => void errors.push(`${path}: ${message}`);
  if (!isObject(input)) return { document: { root_categories: [] }, errors: ['(body): must be a JSON object'] };
  // An empty draft is valid: `{}` (or only the fields GET answers besides the roots) is a document without categories yet.
  const isEmptyDraft = input.root_categories === undefined && Object.keys(input).every((key) => VIEW_FIELDS.has(key));
  const rootList = isEmptyDraft ? [] : input.root_categories;
  if (!Array.isArray(rootList)) {
    return { document: { root_categories: [] }, errors: ['root_categories: must be an array'] };
  }
  const seenRoots = new Set<string>();
  const seenCategories = new Map<string, string>();
  const roots = rootList.map((root: unknown, r): Json | undefined => {
    const path = `root_categories[${r}]`;
    if (!isObject(root)) {
      fail(path, 'must be an object');
      return undefined;
    }
    if (!oneOf(root.root_category, ROOT_CATEGORIES)) fail(`${path}.root_category`, `must be one of ${ROOT_CATEGORIES.join(', ')}`);
    else if (seenRoots.has(root.root_category)) fail(`${path}.root_category`, `${root.root_category} appears more than once`);
    else seenRoots.add(root.root_category);
    const sections = optionalArray(root.sections, `${path}.sections`, fail).map((section, s) => {
      const sectionPath = `${path}.sections[${s}]`;
      if (!isObject(section)) return fail(sectionPath, 'must be an object');
      requireText(section.name, `${sectionPath}.name`, fail);
      optionalText(section.description, `${sectionPath}.description`, fail);
      tags(section.tags, `${sectionPath}.tags`, fail);
      const categories = optionalArray(section.categories, `${sectionPath}.categories`, fail).map((category, c) =>
        validateCategory(category, `${sectionPath}.categories[${c}]`, fail, seenCategories),
      );
      return { ...section, categories };
    });
    return { ...root, sections };
  });
  if (errors.length > 0) return { document: input as unknown as CategoryDocument, errors };
  // Every root is present in what is stored and served, even when the client left it out.
  const complete = ROOT_CATEGORIES.map(
    (name) => roots.find((root) => root?.root_category === name) ?? { root_category: name, sections: [] },
  );
  return { document: { root_categories: complete } as unknown as CategoryDocument, errors };
}

function validateCategory(category: unknown, path: string, fail: (path: string, message: string) => void, seen: Map<string, string>): unknown {
  if (!isObject(category)) return fail(path, 'must be an object');
  if (typeof category.category !== 'string' || !SLUG.test(category.category)) {
    fail(`${path}.category`, 'must match ^[a-z0-9]+(-[a-z0-9]+)*$');
  } else if (seen.has(category.category)) {
    fail(`${path}.category`, `'${category.category}' is already used at ${seen.get(category.category)}`);
  } else {
    seen.set(category.category, path);
  }
  requireText(category.name, `${path}.name`, fail);
  optionalText(category.description, `${path}.description`, fail);
  if (!oneOf(category.default_preference, DEFAULT_PREFERENCES)) {
    fail(`${path}.default_preference`, `must be one of ${DEFAULT_PREFERENCES.join(', ')}`);
  }
  channelList(category.default_mandatory_channels, `${path}.default_mandatory_channels`, MANDATORY_CHANNELS, fail);
  if (Array.isArray(category.default_mandatory_channels) && category.default_mandatory_channels.length > 0 && category.default_preference !== 'cant_unsubscribe') {
    fail(`${path}.default_mandatory_channels`, 'is only allowed when default_preference is cant_unsubscribe');
  }
  channelList(category.default_opt_in_channels, `${path}.default_opt_in_channels`, PREFERENCE_CHANNELS, fail);
  tags(category.tags, `${path}.tags`, fail);
  digestScheduleOptions(category.digest_schedule_options, `${path}.digest_schedule_options`, fail);
  properties(category.properties, `${path}.properties`, fail);
  return category;
}

function digestScheduleOptions(value: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (value === undefined || value === null) return;
  if (!isObject(value) || !Array.isArray(value.options)) return fail(path, 'must be an object with an options array');
  const ids = new Set<string>();
  let defaults = 0;
  value.options.forEach((option: unknown, i) => {
    const at = `${path}.options[${i}]`;
    if (!isObject(option)) return fail(at, 'must be an object');
    if (typeof option.id !== 'string' || !SLUG.test(option.id)) fail(`${at}.id`, 'must match ^[a-z0-9]+(-[a-z0-9]+)*$');
    else if (ids.has(option.id)) fail(`${at}.id`, `'${option.id}' is used twice`);
    else ids.add(option.id);
    requireText(option.label, `${at}.label`, fail);
    if (!oneOf(option.frequency, SCHEDULE_FREQUENCIES)) fail(`${at}.frequency`, `must be one of ${SCHEDULE_FREQUENCIES.join(', ')}`);
    if (!Number.isInteger(option.interval) || (option.interval as number) < 1) fail(`${at}.interval`, 'must be an integer of at least 1');
    if (option.time !== undefined && option.time !== null) {
      if (!isObject(option.time)) fail(`${at}.time`, 'must be an object');
      else {
        if (!oneOf(option.time.edit_policy, EDIT_POLICIES)) fail(`${at}.time.edit_policy`, `must be one of ${EDIT_POLICIES.join(', ')}`);
        if (typeof option.time.default_value !== 'string' || !TIME.test(option.time.default_value)) {
          fail(`${at}.time.default_value`, 'must be a 24-hour time HH:MM');
        }
      }
    }
    if (option.weekdays !== undefined && option.weekdays !== null) {
      if (!isObject(option.weekdays)) fail(`${at}.weekdays`, 'must be an object');
      else {
        if (!oneOf(option.weekdays.edit_policy, EDIT_POLICIES)) fail(`${at}.weekdays.edit_policy`, `must be one of ${EDIT_POLICIES.join(', ')}`);
        const days = option.weekdays.default_value;
        if (!Array.isArray(days) || days.some((d) => !oneOf(d, WEEKDAYS))) {
          fail(`${at}.weekdays.default_value`, `must be an array of ${WEEKDAYS.join(', ')}`);
        }
      }
    }
    if (typeof option.is_default !== 'boolean') fail(`${at}.is_default`, 'must be a boolean');
    else if (option.is_default) defaults++;
  });
  if (value.options.length > 0 && defaults !== 1) fail(`${path}.options`, 'exactly one option must be the default');
}

function properties(value: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) return fail(path, 'must be an array');
  const keys = new Set<string>();
  value.forEach((property: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(property)) return fail(at, 'must be an object');
    if (typeof property.key !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(property.key)) {
      fail(`${at}.key`, 'must be an identifier (letters, digits, _), at most 64 characters');
    } else if (keys.has(property.key)) fail(`${at}.key`, `'${property.key}' is used twice`);
    else keys.add(property.key);
    requireText(property.label, `${at}.label`, fail);
    if (!oneOf(property.value_type, VALUE_TYPES)) fail(`${at}.value_type`, `must be one of ${VALUE_TYPES.join(', ')}`);
    else if (property.default_value !== undefined && property.default_value !== null && !matchesValueType(property.default_value, property.value_type)) {
      fail(`${at}.default_value`, `must be a ${property.value_type}`);
    }
    if (typeof property.is_optional !== 'boolean') fail(`${at}.is_optional`, 'must be a boolean');
    if (!oneOf(property.edit_policy, EDIT_POLICIES)) fail(`${at}.edit_policy`, `must be one of ${EDIT_POLICIES.join(', ')}`);
  });
}

export function matchesValueType(value: unknown, type: (typeof VALUE_TYPES)[number]): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string_array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

function channelList(value: unknown, path: string, allowed: readonly string[], fail: (path: string, message: string) => void): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) return fail(path, 'must be an array or null');
  value.forEach((channel, i) => {
    if (!allowed.includes(channel as string)) fail(`${path}[${i}]`, `must be one of ${allowed.join(', ')}`);
  });
}

function tags(value: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) return fail(path, 'must be an array or null');
  value.forEach((tag, i) => {
    if (typeof tag !== 'string' || !SLUG.test(tag)) fail(`${path}[${i}]`, 'must be lowercase and hyphenated (^[a-z0-9]+(-[a-z0-9]+)*$)');
  });
}

function optionalArray(value: unknown, path: string, fail: (path: string, message: string) => void): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    fail(path, 'must be an array');
    return [];
  }
  return value;
}

function requireText(value: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (typeof value !== 'string' || value.trim() === '') fail(path, 'must be a non-empty string');
  else if (value.length > 255) fail(path, 'must be at most 255 characters');
}

function optionalText(value: unknown, path: string, fail: (path: string, message: string) => void): void {
  if (value !== undefined && value !== null && typeof value !== 'string') fail(path, 'must be a string');
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
