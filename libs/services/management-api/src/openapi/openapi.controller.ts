import { Controller, Get } from '@nestjs/common';
import { managementOpenApi } from './management-openapi';

/** The OpenAPI description of this API, unauthenticated like the rest of the public docs. */
@Controller()
export class ManagementOpenApiController {
  @Get('openapi.json')
  openApi(): typeof managementOpenApi {
    return managementOpenApi;
  }
}
