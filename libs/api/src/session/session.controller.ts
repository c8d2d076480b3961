import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { API_ROLES } from '@drover/config';
import { SessionStore } from '@drover/store';
import { ApiAuth } from '../auth/api-auth.service';
import type { AuthenticatedRequest } from '../auth/principal';
import { RefusalThrottle } from '../auth/refusal-throttle';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoOf, isoSchema as iso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { SseStreams } from '../events/sse-streams';
import { CSRF_HEADER, readCookie, sessionCookie } from './session-cookie';

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
    'SameSite=Strict, Path=/); over TLS (or X-Forwarded-Proto: https from a DROVER_TRUST_PROXY proxy, or with ' +
    'DROVER_API_COOKIE_SECURE=true) the cookie is Secure and named `__Host-drover_session`. The session lasts ' +
    "12 h from login and is kept in Redis (any api replica accepts it) with the token's name and tokens-file " +
    'hash, never the token; every request re-checks them against the current tokens. Requests with the cookie ' +
    "need `X-Drover-CSRF` when they change anything, and an `Origin` (if any) of the api's own.",
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
    403: { description: "No X-Drover-CSRF header, or an Origin that is not the api's own" },
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
    204: { description: 'Logged out (also when there was no session); its event streams end' },
    403: { description: "No X-Drover-CSRF header, or an Origin that is not the api's own" },
  },
});

/** The console's login, logout and "who am I". */
@Controller('api/v1')
export class SessionController {
  constructor(
    private readonly auth: ApiAuth,
    private readonly sessions: SessionStore,
    private readonly refusals: RefusalThrottle,
    private readonly streams: SseStreams,
  ) {}

  @ApiRoute(login)
  async login(@In() { body }: RouteInput<typeof login>, @Req() req: Req_, @Res({ passthrough: true }) res: Response) {
    await this.requireBrowserWrite(req);
    if (this.auth.developmentMode) {
      throw new ProblemError(409, 'development mode (DROVER_API_TOKENS_FILE is unset): no login needed from loopback');
    }
    const token = this.auth.verifyToken(body.token);
    if (!token) {
      await this.refusals.refused(req);
      throw new ProblemError(401, 'the token is not valid');
    }
    const principal = { name: token.name, role: token.role };
    // The audit entry of this login names the token it was made with.
    req.principal = principal;
    const { id, session } = await this.sessions.open(principal, token.sha256);
    res.setHeader(
      'Set-Cookie',
      sessionCookie(id, { maxAgeMs: session.expiresAt - session.createdAt, secure: this.auth.secure(req) }),
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
    await this.requireBrowserWrite(req);
    const id = readCookie(req, this.auth.cookieName(req));
    if (id !== undefined) {
      const session = await this.sessions.get(id);
      if (session) req.principal = { name: session.name, role: session.role };
      await this.sessions.close(id);
      this.streams.endSession(id);
    }
    res.setHeader('Set-Cookie', sessionCookie('', { maxAgeMs: 0, secure: this.auth.secure(req) }));
  }

  /**
   * Login and logout are browser writes: the CSRF header, and an Origin (if any) of the api's own.
   * A refusal counts against the address's refusal limit, like a bad token.
   */
  private async requireBrowserWrite(req: Request): Promise<void> {
    try {
      if (!req.headers[CSRF_HEADER]) {
        throw new ProblemError(403, 'console session requests must carry the header "X-Drover-CSRF: 1"');
      }
      this.auth.requireOwnOrigin(req, 'a console login or logout');
    } catch (err) {
      await this.refusals.refused(req);
      throw err;
    }
  }
}
