// Thin HTTP client for the PDPP resource server (RS) read API.
// Every call carries the grant-scoped client bearer it was given; the adapter
// never substitutes another credential and never retries with a broader one.

const DEFAULT_TIMEOUT_MS = 20000;

/** Encode a query object the way the RS (Node `qs`) parses it. */
export function encodeQuery(query = {}) {
  const parts = [];
  const push = (k, v) => parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (key === "filter" && typeof value === "object") {
      for (const [field, cond] of Object.entries(value)) {
        if (cond !== null && typeof cond === "object" && !Array.isArray(cond)) {
          for (const [op, v] of Object.entries(cond)) {
            if (v !== undefined && v !== null) push(`filter[${field}][${op}]`, v);
          }
        } else if (cond !== undefined) {
          push(`filter[${field}]`, cond === null ? "" : cond);
        }
      }
    } else if (key === "expand_limit" && typeof value === "object") {
      for (const [rel, n] of Object.entries(value)) push(`expand_limit[${rel}]`, n);
    } else if (Array.isArray(value)) {
      for (const v of value) push(key, v);
    } else {
      push(key, value);
    }
  }
  return parts.join("&");
}

/** Turn any non-2xx RS body into a typed error object. */
export function normalizeRsError(status, body) {
  if (body && typeof body === "object") {
    if (body.error && typeof body.error === "object") return { ...body.error, status };
    if (typeof body.error === "string") {
      return {
        type: body.error,
        code: body.error,
        message: body.error_description ?? body.message ?? body.error,
        status,
      };
    }
    return { type: "rs_error", code: `http_${status}`, message: body.message ?? `RS answered HTTP ${status}`, status };
  }
  return {
    type: "rs_error",
    code: `http_${status}`,
    message: typeof body === "string" && body ? body.slice(0, 300) : `RS answered HTTP ${status}`,
    status,
  };
}

export class RsClient {
  constructor(baseUrl, { timeoutMs = DEFAULT_TIMEOUT_MS, fetchImpl = globalThis.fetch } = {}) {
    this.baseUrl = String(baseUrl).replace(/\/+$/, "");
    this.timeoutMs = timeoutMs;
    this.fetchImpl = fetchImpl;
  }

  url(path, query) {
    const q = encodeQuery(query);
    return `${this.baseUrl}${path}${q ? `?${q}` : ""}`;
  }

  /** GET a JSON document. Resolves to {ok, status, body, error, requestId}. */
  async get(path, query, token) {
    const url = this.url(path, query);
    const headers = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    let res;
    try {
      res = await this.fetchImpl(url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      return {
        ok: false,
        status: 0,
        error: {
          type: "rs_unavailable",
          code: "rs_unavailable",
          message: `Could not reach the PDPP resource server: ${err?.message ?? err}`,
        },
      };
    }
    const requestId = res.headers.get("request-id") ?? res.headers.get("x-request-id") ?? null;
    const ctype = res.headers.get("content-type") ?? "";
    let body = null;
    const text = await res.text().catch(() => "");
    if (ctype.includes("json") || /^\s*[[{]/.test(text)) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    } else {
      body = text;
    }
    if (res.ok) return { ok: true, status: res.status, body, requestId };
    const error = normalizeRsError(res.status, body);
    if (requestId && !error.request_id) error.request_id = requestId;
    return { ok: false, status: res.status, body, error, requestId };
  }
}

export function recordPath(stream, recordId) {
  return `/v1/streams/${encodeURIComponent(stream)}/records/${encodeURIComponent(recordId)}`;
}

/** Ask the RS what kind of bearer this is. Resolves to {kind, status, error}. */
export async function probeToken(rs, token) {
  const res = await rs.get("/v1/schema", { view: "compact", stream: "__pdpp_adapter_probe__" }, token);
  if (res.ok) {
    const b = res.body?.bearer ?? {};
    const kind = b.token_kind === "owner" || b.scope === "owner" ? "owner" : b.token_kind ?? "client";
    return { kind, status: res.status };
  }
  return { kind: null, status: res.status, error: res.error };
}
