import { Injectable, type Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { buildOpenApiDocument, routesOf } from './openapi-document';
import { droverVersion } from '@drover/platform';

/** Builds the document once, from the controllers Nest actually mounted. */
@Injectable()
export class OpenApiService {
  private cached?: Record<string, unknown>;

  constructor(private readonly discovery: DiscoveryService) {}

  document(): Record<string, unknown> {
    this.cached ??= buildOpenApiDocument(
      routesOf(
        this.discovery
          .getControllers()
          .map((w) => w.metatype as Type)
          .filter(Boolean),
      ),
      { version: droverVersion() },
    );
    return this.cached;
  }
}
