import { isCoderApiError } from '../coder/errors';
import type { ReadinessCheck } from './readiness';

/**
 * Coder is ready for the worker when it answers AND accepts the token: `/buildinfo` is public, so a
 * wrong or expired token stays "ready" on it while every migration fails with 401. `/users/me` is
 * the cheapest authenticated read (coderd/httpmw/userparam.go resolves `me` from the token).
 */
export function coderReadiness(coder: { buildInfo(): Promise<unknown>; currentUser(): Promise<unknown> }): ReadinessCheck {
  return {
    name: 'coder',
    async check() {
      await coder.buildInfo();
      try {
        await coder.currentUser();
      } catch (err) {
        // Named, never shown: the token's value is nowhere in this message.
        if (isCoderApiError(err, 'unauthorized')) throw new Error('Coder rejects the session token (401): it is wrong, expired or revoked; set CODER_SESSION_TOKEN to a valid token of an Owner or an Organization Admin and restart the worker');
        throw err;
      }
    },
  };
}
