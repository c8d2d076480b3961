import { SessionStore } from '@drover/store';
import type { ApiPart } from '../api-part';
import { SessionController } from './session.controller';

/** The console's session routes and the Redis store of sessions. */
export const SESSION_PART: ApiPart = {
  controllers: [SessionController],
  providers: [SessionStore],
};
