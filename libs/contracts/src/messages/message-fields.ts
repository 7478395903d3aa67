import { FieldError } from '../envelope';

/** Small structural checks shared by the payload parsers of internal messages. */
export class PayloadChecks {
  readonly errors: FieldError[] = [];

  constructor(private readonly value: Record<string, unknown>) {}

  string(field: string, options: { optional?: boolean } = {}): void {
    const v = this.value[field];
    if (v === undefined && options.optional) return;
    if (typeof v !== 'string' || (v === '' && !options.optional)) this.errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }

  integer(field: string, min: number): void {
    const v = this.value[field];
    if (!Number.isInteger(v) || (v as number) < min) this.errors.push({ path: `payload.${field}`, message: `must be an integer of at least ${min}` });
  }

  object(field: string, options: { optional?: boolean } = {}): void {
    const v = this.value[field];
    if (v === undefined && options.optional) return;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.errors.push({ path: `payload.${field}`, message: 'must be an object' });
  }

  /** An array of strings, of at most `max` elements when given. */
  stringArray(field: string, options: { optional?: boolean; max?: number } = {}): void {
    const v = this.value[field];
    if (v === undefined && options.optional) return;
    const max = options.max ?? Infinity;
    if (!Array.isArray(v) || v.length > max || v.some((item) => typeof item !== 'string')) {
      this.errors.push({ path: `payload.${field}`, message: max === Infinity ? 'must be an array of strings' : `must be an array of at most ${max} strings` });
    }
  }

  oneOf(field: string, allowed: readonly string[]): void {
    if (!allowed.includes(this.value[field] as string)) this.errors.push({ path: `payload.${field}`, message: `must be one of ${allowed.join(', ')}` });
  }

  static of(payload: unknown): PayloadChecks {
    const value = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
    const checks = new PayloadChecks(value);
    if (value !== payload) checks.errors.push({ path: 'payload', message: 'must be an object' });
    return checks;
  }
}
