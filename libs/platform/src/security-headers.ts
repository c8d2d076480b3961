import helmet from 'helmet';

/**
 * What every app's HTTP answers may do in a browser: nothing. They are JSON, problem documents,
 * event streams and metrics, never pages, so nothing in them may load, run or be framed. The
 * console (`/ui`) replaces this policy with its own.
 */
export const API_CSP = {
  defaultSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
};

/**
 * helmet's defaults (no content sniffing, no referrer, never framed, readable by the app's own
 * origin only, an opener of its own) with {@link API_CSP}, minus Strict-Transport-Security: the
 * apps speak plain HTTP behind a TLS-terminating ingress, which owns HSTS for its host.
 */
export const securityHeaders = () =>
  helmet({
    strictTransportSecurity: false,
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    // Nothing frames these answers, not even the api's own pages (helmet's default is SAMEORIGIN).
    xFrameOptions: { action: 'deny' },
  });
