import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, HeraldError } from '@herald/contracts';

/**
 * Request DTO validation (class-validator) that reports every failing field by its
 * path (`channels[2].name`), as the 400 body of decisions.md requires, and ignores
 * unknown fields the way the SuprSend API does.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => HeraldError.validation(fieldErrorsOf(errors)),
  });
}

export function fieldErrorsOf(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = joinPath(parent, error.property);
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message: stripProperty(message, error.property) }));
    return [...own, ...fieldErrorsOf(error.children ?? [], path)];
  });
}

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** class-validator messages start with the property name, which the path already says. */
function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
