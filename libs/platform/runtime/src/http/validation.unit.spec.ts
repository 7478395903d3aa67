import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsEmail, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { HeraldError } from '@herald/contracts';
import { createValidationPipe } from './validation';

class Channel {
  @IsString()
  @Length(1, 10)
  name!: string;

  @IsOptional()
  @IsEmail()
  email?: string;
}

class Body {
  @IsString()
  title!: string;

  @ValidateNested({ each: true })
  @Type(() => Channel)
  @ArrayMaxSize(3)
  channels!: Channel[];
}

const metadata: ArgumentMetadata = { type: 'body', metatype: Body };

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();

  it('reports every failing field by its path', async () => {
    const error = await pipe
      .transform({ channels: [{ name: 'ok' }, { name: '', email: 'nope' }, { name: 'x'.repeat(11) }] }, metadata)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HeraldError);
    expect((error as HeraldError).code).toBe('validation_error');
    expect((error as HeraldError).fieldErrors.map((f) => f.path)).toEqual([
      'title',
      'channels[1].name',
      'channels[1].email',
      'channels[2].name',
    ]);
    expect((error as HeraldError).fieldErrors[0].message).toBe('must be a string');
  });

  it('passes a valid body through as an instance, without unknown fields', async () => {
    const value = await pipe.transform({ title: 't', channels: [{ name: 'email' }], extra: 1 }, metadata);
    expect(value).toBeInstanceOf(Body);
    expect(value).toEqual({ title: 't', channels: [{ name: 'email' }] });
  });
});
