import { API_CONTROLLERS } from '../../libs/api/src/api.parts';
import { buildOpenApiDocument, routesOf } from '../../libs/api/src/openapi/openapi-document';
import { OpenApiController } from '../../libs/api/src/openapi/openapi.controller';
import { droverVersion } from '../../libs/platform/src/version';

/**
 * The OpenAPI document the api serves, built from the controller classes alone: their route specs
 * are decorator metadata, so nothing is started (no Nest app, no Redis). The api mounts exactly
 * these controllers (ApiModule), and test/api/fuzz.e2e-spec.ts checks the served copy equals it.
 */
export function offlineApiDocument(): Record<string, unknown> {
  return buildOpenApiDocument(routesOf([OpenApiController, ...API_CONTROLLERS]), { version: droverVersion() });
}
