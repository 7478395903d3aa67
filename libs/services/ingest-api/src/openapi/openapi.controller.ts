import { Controller, Get } from '@nestjs/common';
import { publicOpenApi } from './public-openapi';

/** The OpenAPI description of `{base_url}`, unauthenticated like the rest of the public docs. */
@Controller()
export class PublicOpenApiController {
  @Get('openapi.json')
  openApi(): typeof publicOpenApi {
    return publicOpenApi;
  }
}
