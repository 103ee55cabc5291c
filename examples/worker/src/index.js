// The overshoot example Worker: a fixed-window rate limiter that keeps its
// counters in Workers KV, written for this project to behave like the
// limiter that overshoot models (see ../../../shared/DESIGN.md, "fixed-window").
//
// Per request: read the caller's counter for the current window, deny when it
// has reached the limit, otherwise write count+1 and allow. The read and the
// write are separate KV calls, so concurrent requests can both read the same
// count: that gap is what overshoot measures. Any KV error allows the request
// (fail open).
//
// Answers: 200 allowed, 429 denied (with Retry-After: <seconds until the
// window ends>), both with IETF draft RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers, checked against revision 11)
//   RateLimit-Policy: "<name>";q=<limit>;w=<window seconds>
//   RateLimit: "<name>";r=<remaining>;t=<seconds until the window ends>
// plus X-Overshoot-Window: <window id>, X-Overshoot-Key: <caller> (so an
// attacker counts each response under the key this Worker used, whatever
// the runtime made of the client's address) and, when KV failed and the
// request was let through, X-Overshoot-Fail-Open: 1 and no RateLimit field:
// the request was not counted, so what remains is unknown, and claiming the
// whole limit would invite the client to keep going.

const MIN_TTL_SECONDS = 60; // the smallest expirationTtl Workers KV accepts

// settings reads the limiter's configuration from the wrangler vars and says
// exactly which one is wrong when one is.
function settings(env) {
  const name = env.LIMIT_NAME ?? "default";
  const limit = Number(env.LIMIT ?? "5");
  const windowSeconds = Number(env.WINDOW_SECONDS ?? "60");
  if (!Number.isInteger(limit) || limit < 1) {
    throw new Error(`wrangler var LIMIT must be a whole number >= 1, got ${JSON.stringify(env.LIMIT)}`);
  }
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new Error(`wrangler var WINDOW_SECONDS must be a whole number >= 1, got ${JSON.stringify(env.WINDOW_SECONDS)}`);
  }
  if (typeof name !== "string" || name === "" || name.includes(":") || name.includes('"')) {
    throw new Error(`wrangler var LIMIT_NAME must be a non-empty string without ':' or '"', got ${JSON.stringify(name)}`);
  }
  return { name, limit, windowSeconds };
}

// callerOf names the caller as "<token>:<ip>". The IP is CF-Connecting-IP,
// else the first X-Forwarded-For entry, else "unknown"; like JavaScript's ??,
// an empty header counts as present. Under wrangler dev the runtime sets
// CF-Connecting-IP itself, so locally callers differ by token only.
export function callerOf(request) {
  const token = request.headers.get("X-Anon-Token") ?? "anonymous";
  const forwarded = request.headers.get("X-Forwarded-For");
  const ip =
    request.headers.get("CF-Connecting-IP") ??
    (forwarded === null ? undefined : forwarded.split(",")[0].trim()) ??
    "unknown";
  return `${token}:${ip}`;
}

// countOf turns a stored counter into a number the way parseInt(raw, 10) || 0
// does: a missing or unparsable value counts as zero.
export function countOf(raw) {
  if (raw === null || raw === undefined) return 0;
  return parseInt(raw, 10) || 0;
}

// decide runs one fixed-window check for caller at nowMs against the KV
// namespace kv. It returns what the response needs to say.
export async function decide(kv, cfg, caller, nowMs) {
  const nowSeconds = nowMs / 1000;
  const windowId = Math.floor(nowSeconds / cfg.windowSeconds);
  const resetIn = Math.max(0, Math.ceil((windowId + 1) * cfg.windowSeconds - nowSeconds));
  const key = `rl:${cfg.name}:${caller}:${windowId}`;
  try {
    const count = countOf(await kv.get(key));
    if (count >= cfg.limit) {
      return { allowed: false, remaining: 0, windowId, resetIn, failOpen: false };
    }
    await kv.put(key, String(count + 1), {
      expirationTtl: Math.max(MIN_TTL_SECONDS, cfg.windowSeconds),
    });
    return { allowed: true, remaining: cfg.limit - count - 1, windowId, resetIn, failOpen: false };
  } catch (err) {
    // Fail open: a KV outage, a 429 on the write or a quota must not take the
    // site down. The request is allowed and the header says why.
    console.error(`rate limiter: KV failed for ${key}, allowing the request: ${err}`);
    return { allowed: true, remaining: cfg.limit, windowId, resetIn, failOpen: true };
  }
}

function respond(cfg, caller, d) {
  const headers = new Headers({
    "Content-Type": "text/plain; charset=utf-8",
    "RateLimit-Policy": `"${cfg.name}";q=${cfg.limit};w=${cfg.windowSeconds}`,
    "X-Overshoot-Window": String(d.windowId),
    "X-Overshoot-Key": caller,
  });
  if (d.failOpen) {
    headers.set("X-Overshoot-Fail-Open", "1");
  } else {
    headers.set("RateLimit", `"${cfg.name}";r=${d.remaining};t=${d.resetIn}`);
  }
  if (!d.allowed) {
    headers.set("Retry-After", String(d.resetIn));
    return new Response("Too many requests\n", { status: 429, headers });
  }
  return new Response("ok\n", { status: 200, headers });
}

export default {
  async fetch(request, env) {
    let cfg;
    try {
      cfg = settings(env);
    } catch (err) {
      return new Response(`overshoot example Worker misconfigured: ${err.message}\n`, { status: 500 });
    }
    if (!env.RATE_LIMIT) {
      // Without the binding every request would fail open silently: say so.
      return new Response("overshoot example Worker misconfigured: no KV binding RATE_LIMIT (see wrangler.jsonc)\n", { status: 500 });
    }
    const caller = callerOf(request);
    const d = await decide(env.RATE_LIMIT, cfg, caller, Date.now());
    return respond(cfg, caller, d);
  },
};
