import { Controller, Get, Header } from '@nestjs/common';
import { OpenApiService } from './openapi.service';

/** `GET /api/v1/openapi.json`: public, so tools and the CLI can read the contract before a token exists. */
@Controller('api/v1')
export class OpenApiController {
  constructor(private readonly openapi: OpenApiService) {}

  @Get('openapi.json')
  @Header('Cache-Control', 'no-cache')
  document(): Record<string, unknown> {
    return this.openapi.document();
  }
}
