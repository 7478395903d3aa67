import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { SealedVendorTest, VENDOR_TEST_PATH, VendorTestAnswer } from '@herald/contracts';
import { VendorTester } from './vendor-tester';

/**
 * management-api's "send a test" (contracts/vendor-test.ts): internal, not in the public
 * OpenAPI nor routed by the gateway or the ingress; a request not sealed with
 * HERALD_SECRETS_KEY is a 401. The vendor's answer is a 200 whether it accepted or not.
 */
@Controller(VENDOR_TEST_PATH)
export class VendorTestController {
  constructor(private readonly tester: VendorTester) {}

  @Post()
  @HttpCode(200)
  send(@Body() body: SealedVendorTest | undefined): Promise<VendorTestAnswer> {
    return this.tester.send(this.tester.open(body?.sealed));
  }
}
