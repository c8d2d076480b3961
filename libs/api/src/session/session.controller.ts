import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { API_ROLES, AppConfig } from '@drover/config';
import { ApiAuth } from '../auth/api-auth.service';
import type { AuthenticatedRequest } from '../auth/principal';
import { RefusalThrottle } from '../auth/refusal-throttle';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoOf, isoSchema as iso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { CSRF_HEADER, readCookie, SESSION_COOKIE, sessionCookie } from './session-cookie';
import { SessionStore } from './session-store';

type Req_ = Request & AuthenticatedRequest;

const SessionSchema = named(
  'Session',
  z.object({
    authenticated: z.boolean().describe('false: no valid session, token or loopback development access'),
    name: z.string().optional().describe('The token the caller authenticated with (`dev` in development mode)'),
    role: z.enum(API_ROLES).optional(),
    auth: z.enum(['session', 'bearer', 'development']).optional().describe('How this request was authenticated'),
    developmentMode: z.boolean().describe('The api has no tokens file: loopback clients need no login'),
    expiresAt: iso.optional().describe('When the console session ends (a fixed 12 h after login)'),
  }),
  'Who the caller is, for the console: its token name and role, and how it authenticated; ' +
    '`authenticated: false` (not a 401) when it is nobody, so the console can show its login page.',
);

const csrf = { 'X-Drover-CSRF': 'Must be present (any value): proves the request came from the console' };

const login = route({
  operationId: 'createSession',
  method: 'POST',
  path: 'session',
  summary: 'Console login: trade an API token for an httpOnly session cookie',
  description:
    'Verifies the token like a bearer header and answers with `Set-Cookie: drover_session=…` (httpOnly, ' +
    'SameSite=Strict, Path=/, Secure over TLS or with DROVER_API_COOKIE_SECURE=true). The session lasts 12 h ' +
    'from login and is kept in Redis (any api replica accepts it); the token itself is never stored. ' +
    'Requests with the cookie need `X-Drover-CSRF` when they change anything.',
  tag: 'session',
  role: 'none',
  headers: csrf,
  body: z.strictObject({ token: z.string().min(1).max(4096) }),
  responses: {
    200: {
      description: 'Logged in',
      schema: SessionSchema,
      headers: { 'Set-Cookie': 'The session cookie' },
    },
    401: { description: 'The token is not valid' },
    403: { description: 'No X-Drover-CSRF header' },
    409: { description: 'Development mode: there are no tokens to log in with' },
  },
});

const whoami = route({
  operationId: 'getSession',
  method: 'GET',
  path: 'session',
  summary: 'Who the caller is (token name, role) and how it authenticated',
  tag: 'session',
  role: 'none',
  responses: { 200: { description: 'The caller', schema: SessionSchema } },
});

const logout = route({
  operationId: 'deleteSession',
  method: 'DELETE',
  path: 'session',
  summary: 'Console logout: closes the session and clears its cookie',
  tag: 'session',
  role: 'none',
  headers: csrf,
  responses: {
    204: { description: 'Logged out (also when there was no session)' },
    403: { description: 'No X-Drover-CSRF header' },
  },
});

/** The console's login, logout and "who am I" (issue #15). */
@Controller('api/v1')
export class SessionController {
  constructor(
    private readonly auth: ApiAuth,
    private readonly sessions: SessionStore,
    private readonly config: AppConfig,
    private readonly refusals: RefusalThrottle,
  ) {}

  @ApiRoute(login)
  async login(@In() { body }: RouteInput<typeof login>, @Req() req: Req_, @Res({ passthrough: true }) res: Response) {
    requireCsrf(req);
    if (this.auth.developmentMode) {
      throw new ProblemError(409, 'development mode (DROVER_API_TOKENS_FILE is unset): no login needed from loopback');
    }
    const principal = this.auth.verifyToken(body.token);
    if (!principal) {
      await this.refusals.refused(req);
      throw new ProblemError(401, 'the token is not valid');
    }
    // The audit entry of this login names the token it was made with.
    req.principal = principal;
    const { id, session } = await this.sessions.open(principal);
    res.setHeader(
      'Set-Cookie',
      sessionCookie(id, { maxAgeMs: session.expiresAt - session.createdAt, secure: this.secure(req) }),
    );
    return {
      authenticated: true,
      ...principal,
      auth: 'session' as const,
      developmentMode: false,
      expiresAt: isoOf(session.expiresAt),
    };
  }

  @ApiRoute(whoami)
  async whoami(@Req() req: Req_) {
    const developmentMode = this.auth.developmentMode;
    // Nobody is an answer here, not an error; anything else (Redis away) still is.
    const principal = await this.auth
      .authenticate(req)
      .catch((err: unknown) => (err instanceof ProblemError ? undefined : Promise.reject(err)));
    if (!principal) return { authenticated: false, developmentMode };
    const session = req.consoleSession;
    return {
      authenticated: true,
      ...principal,
      auth: this.auth.developmentMode ? ('development' as const) : session ? ('session' as const) : ('bearer' as const),
      developmentMode,
      ...(session && { expiresAt: isoOf(session.expiresAt) }),
    };
  }

  @ApiRoute(logout)
  async logout(@Req() req: Req_, @Res({ passthrough: true }) res: Response) {
    requireCsrf(req);
    const id = readCookie(req, SESSION_COOKIE);
    if (id !== undefined) {
      const session = await this.sessions.get(id);
      if (session) req.principal = { name: session.name, role: session.role };
      await this.sessions.close(id);
    }
    res.setHeader('Set-Cookie', sessionCookie('', { maxAgeMs: 0, secure: this.secure(req) }));
  }

  private secure(req: Request): boolean {
    return req.secure || this.config.env.apiCookieSecure;
  }
}

function requireCsrf(req: Request): void {
  if (!req.headers[CSRF_HEADER]) {
    throw new ProblemError(403, 'console session requests must carry the header "X-Drover-CSRF: 1"');
  }
}
