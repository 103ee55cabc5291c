// A second limiter Worker, written apart from index.js, for
// scripts/validate-worker.sh -plain: does a calibration from a plain
// scenario depend on the example's own code? Same idea (a fixed-window
// counter in Workers KV, read then written, fail open), other code, and
// only the standard answer: 200 or 429, a RateLimit-Policy and a RateLimit
// field (draft-ietf-httpapi-ratelimit-headers), Retry-After on a 429. None
// of the example's X-Overshoot-* fields: the attacker counts each answer
// under the token it sent and the window its clock puts it in.
//
// Run it: WORKER_MAIN=src/plain.js examples/worker/dev.sh start 8788

export default {
  async fetch(request, env) {
    const limit = Number(env.LIMIT ?? "5");
    const windowSeconds = Number(env.WINDOW_SECONDS ?? "60");
    const name = env.LIMIT_NAME ?? "default";
    const now = Date.now() / 1000;
    const window = Math.floor(now / windowSeconds);
    const reset = Math.max(0, Math.ceil((window + 1) * windowSeconds - now));
    const token = request.headers.get("X-Anon-Token") ?? "anonymous";
    const key = `${name}/${token}/${window}`;
    const policy = `"${name}";q=${limit};w=${windowSeconds}`;
    let used;
    try {
      used = Number(await env.RATE_LIMIT.get(key)) || 0;
      if (used < limit) {
        await env.RATE_LIMIT.put(key, String(used + 1), { expirationTtl: Math.max(60, windowSeconds) });
      }
    } catch {
      return new Response("ok\n", { headers: { "RateLimit-Policy": policy } });
    }
    const headers = { "RateLimit-Policy": policy, RateLimit: `"${name}";r=${Math.max(0, limit - used - 1)};t=${reset}` };
    if (used >= limit) {
      return new Response("Too many requests\n", { status: 429, headers: { ...headers, "Retry-After": String(reset) } });
    }
    return new Response("ok\n", { headers });
  },
};
