import { Controller, Header } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '../http/api-route.decorator';
import { route } from '../http/route-spec';
import { named } from './api-schemas';
import { OpenApiService } from './openapi.service';

/** Only the parts a client relies on are fixed; the rest is whatever the OpenAPI 3.1 format holds. */
const OpenApiDocumentSchema = named(
  'OpenApiDocument',
  z.looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
    components: z.record(z.string(), z.unknown()),
  }),
  'An OpenAPI 3.1 document',
);

const getOpenApiDocument = route({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: 'openapi.json',
  summary: 'The OpenAPI 3.1 document of this API',
  description: 'Public, so tools and the CLI can read the contract before they have a token.',
  tag: 'meta',
  role: 'none',
  responses: { 200: { description: 'This document', schema: OpenApiDocumentSchema } },
});

/** `GET /api/v1/openapi.json`: a declared route like the others, so the document lists itself. */
@Controller('api/v1')
export class OpenApiController {
  constructor(private readonly openapi: OpenApiService) {}

  @ApiRoute(getOpenApiDocument)
  @Header('Cache-Control', 'no-cache')
  document(): Record<string, unknown> {
    return this.openapi.document();
  }
}
