import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { SealedVendorTestSchema, VENDOR_TEST_PATH, VendorTestAnswer } from '@herald/contracts';
import { RequestBodySchema } from '@herald/runtime';
import { DISPATCH_BODIES } from '../http/dispatch-schemas';
import { VendorTester } from './vendor-tester';

/**
 * management-api's "send a test" (contracts/vendor-test.ts): internal, not in the public
 * OpenAPI nor routed by the gateway or the ingress; a request not sealed with
 * HERALD_SECRETS_KEY is a 401. The vendor's answer is a 200 whether it accepted or not.
 */
@Controller(VENDOR_TEST_PATH)
export class VendorTestController {
  constructor(private readonly tester: VendorTester) {}

  /** Validated here rather than by @ValidBody: a body of another shape is as unsealed as a forged one (401, never a 400 that says why). */
  @Post()
  @HttpCode(200)
  @RequestBodySchema(SealedVendorTestSchema)
  send(@Body() body: unknown): Promise<VendorTestAnswer> {
    const parsed = DISPATCH_BODIES.sealedVendorTest.parse(body);
    return this.tester.send(this.tester.open(parsed.ok ? parsed.value.sealed : undefined));
  }
}
