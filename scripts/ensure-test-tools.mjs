// `.ci/run`'s first step: install what the test suites need from the machine (scripts/lib/ensure.mjs
// TEST_TOOLS, the same list `npm test` installs from), and fail naming anything still missing.
import { ensureTestTools } from './lib/ensure.mjs';

ensureTestTools({ strict: true });
