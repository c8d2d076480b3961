import { Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '@drover/config';
import { StoreModule } from '@drover/store';
import { AuditLog, ApiEvents } from '@drover/store';
import { ApiAuth, API_AUTH_OPTIONS, API_TOKENS, type ApiAuthOptions } from './auth/api-auth.service';
import { RefusalThrottle, REFUSAL_LIMIT } from './auth/refusal-throttle';
import { TokensFileReloader } from './auth/tokens-file-reloader';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { OpenApiController } from './openapi/openapi.controller';
import { OpenApiService } from './openapi/openapi.service';
import { API_CONTROLLERS, API_PROVIDERS } from './api.parts';

/** A limit nobody reaches within a minute: how "no limit" (DROVER_API_RATE_LIMIT=0) is spelled. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * The management API of docs/api.md under /api/v1, for the api app and standalone. The app calls
 * `configureApiHttp` before listening (body limits, problem answers for parser errors, metrics).
 */
@Module({
  imports: [
    StoreModule,
    DiscoveryModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => [
        { name: 'mutations', ttl: 60_000, limit: config.env.apiRateLimitPerMinute || UNLIMITED },
      ],
    }),
  ],
  controllers: [OpenApiController, ...API_CONTROLLERS],
  providers: [
    { provide: API_TOKENS, inject: [AppConfig], useFactory: (config: AppConfig) => config.apiTokens },
    {
      provide: API_AUTH_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ApiAuthOptions => ({
        allowedHosts: config.env.apiAllowedHosts,
        cookieSecure: config.env.apiCookieSecure,
      }),
    },
    ApiAuth,
    {
      provide: REFUSAL_LIMIT,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => config.env.apiRefusalLimitPerMinute,
    },
    RefusalThrottle,
    TokensFileReloader,
    AuditLog,
    ApiEvents,
    OpenApiService,
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    ...API_PROVIDERS,
  ],
})
export class ApiModule implements OnApplicationBootstrap {
  private readonly logger = new Logger('Api');

  constructor(private readonly auth: ApiAuth) {}

  onApplicationBootstrap(): void {
    if (this.auth.developmentMode) {
      this.logger.warn(
        '!!! DEVELOPMENT MODE: DROVER_API_TOKENS_FILE is unset, so the API has no tokens. It answers ' +
          'loopback clients only, each as admin. Set DROVER_API_TOKENS_FILE before exposing it (docs/api.md). !!!',
      );
    }
  }
}
