import { FieldError, HeraldError } from '@herald/contracts';
import { Credentials } from './credential-fields';
import { VENDOR_BODIES, VendorSettings } from './request-bodies';
import { VendorSpec, validateCredentials } from './vendor-catalogue';

/** What a PUT changes; an absent field keeps its stored value. */
export interface VendorChange {
  readonly is_enabled?: boolean;
  readonly priority?: number;
  /** The API base URL without a trailing slash; null for the vendor's default. */
  readonly base_url?: string | null;
  readonly credentials?: Credentials;
  readonly settings?: VendorSettings;
}

const MAX_SETTINGS_JSON = 16384;
/** The field names the platform logger redacts (runtime logging/logger.ts): they name secrets. */
const SECRET_NAME = /secret|password|passwd|token|authorization|api_?key|credential|cookie|signature/i;

/** A first configuration: priority and credentials are known. */
export interface NewVendor extends VendorChange {
  readonly priority: number;
  readonly credentials: Credentials;
}

/** The body of a PUT that configures the vendor for the first time (or again after a DELETE). */
export function parseNewVendor(body: unknown, spec: VendorSpec): NewVendor {
  const { priority, credentials, ...rest } = parseVendorChange(body, spec, true);
  if (priority === undefined || credentials === undefined) throw new Error('parseVendorChange requires both when creating');
  return { ...rest, priority, credentials };
}

/**
 * The body of a PUT that changes a configured vendor. Its credentials are merged into the
 * stored ones: a field given replaces its value, a field left out keeps it (an edit form
 * shows secrets masked and sends only what the operator typed over), `null` removes an
 * optional field. The result is checked whole, as a first configuration is.
 */
export function parseVendorUpdate(body: unknown, spec: VendorSpec, stored: Credentials): VendorChange {
  return parseVendorChange(body, spec, false, stored);
}

/**
 * Validates a PUT body against its schema (request-bodies.ts) and the vendor's credential
 * fields together, so one 400 lists every failing field by path. The handler calls this
 * (through the repository) rather than `@ValidBody`, because the credential rules depend on the
 * vendor named by the path and on whether it is already configured.
 */
function parseVendorChange(body: unknown, spec: VendorSpec, creating: boolean, stored: Credentials = {}): VendorChange {
  // No body is an empty one: an update that changes nothing.
  const raw = body ?? {};
  const envelope = VENDOR_BODIES.put.parse(raw);
  const errors: FieldError[] = envelope.ok ? [] : [...envelope.errors];
  if (!isRecord(raw)) throw HeraldError.validation(errors);
  const failed = new Set(errors.map((error) => error.path));

  // null means "not given" (the schema's Nullable); only base_url gives null a meaning (the default).
  if (creating && raw.priority == null && !failed.has('priority')) {
    errors.push({ path: 'priority', message: 'is required when the vendor is first configured' });
  }
  const baseUrl = !failed.has('base_url') && typeof raw.base_url === 'string' ? normalisedBaseUrl(raw.base_url, errors) : undefined;

  let credentials: Credentials | undefined;
  const given = !failed.has('credentials') && isRecord(raw.credentials) ? raw.credentials : undefined;
  if (given !== undefined || (creating && !failed.has('credentials'))) {
    // A first PUT without credentials is checked as `{}`: fine for vendors that need none, field by field otherwise.
    const checked = validateCredentials(spec, creating ? (given ?? {}) : mergedCredentials(spec, stored, given ?? {}));
    errors.push(...checked.errors);
    credentials = checked.credentials;
  }
  if (!failed.has('settings') && isRecord(raw.settings)) errors.push(...settingsErrors(raw.settings));

  if (!envelope.ok || errors.length > 0) throw HeraldError.validation(errors);
  const { is_enabled, priority, base_url, settings } = envelope.value;
  return {
    is_enabled: is_enabled ?? undefined,
    priority: priority ?? undefined,
    base_url: base_url == null ? base_url : baseUrl,
    credentials,
    settings: settings ?? undefined,
  };
}

/** A JSON object (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The stored credentials the catalogue still knows, with the given ones over them (null removes one). */
function mergedCredentials(spec: VendorSpec, stored: Credentials, given: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.fromEntries(Object.entries(stored).filter(([name]) => name in spec.credentials));
  for (const [name, value] of Object.entries(given)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

/**
 * The base URL as dispatchers append paths to it. User info would put a credential
 * where responses show it in clear; a query or fragment would be lost on appending.
 */
function normalisedBaseUrl(value: string, errors: FieldError[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // class-validator's isURL and the WHATWG parser disagree on a few edge cases; the parser is what dispatchers use.
    errors.push({ path: 'base_url', message: 'must be a URL address' });
    return undefined;
  }
  if (url.username || url.password) errors.push({ path: 'base_url', message: 'must not contain user info (secrets go in credentials)' });
  if (url.search || url.hash) errors.push({ path: 'base_url', message: 'must not contain a query or a fragment' });
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Settings are shown and published in clear, so a secret put there by mistake would
 * leak; a key named like a secret is refused and pointed to `credentials`.
 */
function settingsErrors(settings: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (JSON.stringify(settings).length > MAX_SETTINGS_JSON) {
    errors.push({ path: 'settings', message: `must be at most ${MAX_SETTINGS_JSON} characters of JSON` });
  }
  const visit = (value: unknown, path: string, depth: number): void => {
    if (depth > 8 || typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
      if (!Array.isArray(value) && SECRET_NAME.test(key)) {
        errors.push({ path: childPath, message: 'looks like a secret: settings are returned in clear, secrets go in credentials' });
      } else {
        visit(child, childPath, depth + 1);
      }
    }
  };
  visit(settings, 'settings', 0);
  return errors;
}
