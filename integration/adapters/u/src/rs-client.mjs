// Minimal client for the PDPP resource server /v1 read API.
// Every call carries the caller's grant-scoped bearer; nothing is ever retried with other credentials.

import { ToolError } from './errors.mjs';

/**
 * Encode a query object the way the RS expects:
 *  - arrays become repeated keys (fields=a&fields=b)
 *  - filter objects become filter[f]=v and filter[f][op]=v
 *  - expand_limit objects become expand_limit[rel]=N
 *  - undefined / null values are skipped
 * @param {Record<string, unknown>} query
 */
export function encodeQuery(query) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) params.append(key, String(item));
    } else if (typeof value === 'object') {
      for (const [sub, subValue] of Object.entries(value)) {
        if (subValue === undefined || subValue === null) continue;
        if (typeof subValue === 'object' && !Array.isArray(subValue)) {
          for (const [op, opValue] of Object.entries(subValue)) {
            if (opValue === undefined || opValue === null) continue;
            params.append(`${key}[${sub}][${op}]`, String(opValue));
          }
        } else {
          params.append(`${key}[${sub}]`, String(subValue));
        }
      }
    } else {
      params.append(key, String(value));
    }
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Percent-encode one path segment. */
export const seg = (s) => encodeURIComponent(String(s));

export class RsClient {
  /**
   * @param {{ rsBase: string, rsTimeoutMs: number, log?: (line: string) => void }} opts
   */
  constructor(opts) {
    this.base = opts.rsBase;
    this.timeoutMs = opts.rsTimeoutMs;
    this.log = opts.log ?? (() => {});
  }

  /**
   * Raw GET. Returns { status, headers, json, bytes }.
   * @param {string} token
   * @param {string} path path starting with /v1/...
   * @param {Record<string, unknown>} [query]
   * @param {{ signal?: AbortSignal, binary?: boolean }} [opts]
   */
  async raw(token, path, query = {}, opts = {}) {
    const url = this.base + path + encodeQuery(query);
    const signals = [AbortSignal.timeout(this.timeoutMs)];
    if (opts.signal) signals.push(opts.signal);
    let res;
    try {
      res = await fetch(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: opts.binary ? '*/*' : 'application/json' },
        signal: AbortSignal.any(signals),
        redirect: 'manual',
      });
    } catch (err) {
      const timedOut = err?.name === 'TimeoutError';
      throw new ToolError({
        code: timedOut ? 'rs_timeout' : 'rs_unavailable',
        type: 'api_error',
        message: timedOut
          ? `The resource server did not answer within ${this.timeoutMs} ms.`
          : `The resource server could not be reached (${err?.cause?.code ?? err?.message ?? 'network error'}).`,
        hint: 'Retry later; the request was not completed.',
      });
    }
    const contentType = res.headers.get('content-type') ?? '';
    const requestId = res.headers.get('request-id') ?? res.headers.get('x-request-id') ?? null;
    if (opts.binary && res.ok) {
      const bytes = Buffer.from(await res.arrayBuffer());
      return { status: res.status, headers: res.headers, json: null, bytes, requestId };
    }
    const text = await res.text();
    let json = null;
    if (text && (contentType.includes('json') || /^[\s]*[{[]/.test(text))) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: res.status, headers: res.headers, json, text, bytes: null, requestId };
  }

  /**
   * GET returning parsed JSON on 2xx, otherwise throwing a ToolError built from the RS error envelope.
   * @param {string} token
   * @param {string} path
   * @param {Record<string, unknown>} [query]
   * @param {{ signal?: AbortSignal }} [opts]
   */
  async get(token, path, query = {}, opts = {}) {
    const r = await this.raw(token, path, query, opts);
    if (r.status >= 200 && r.status < 300) {
      if (r.json == null || typeof r.json !== 'object') {
        throw new ToolError({
          code: 'rs_bad_response',
          type: 'api_error',
          message: `The resource server answered ${path} with a non-JSON body.`,
        });
      }
      return r.json;
    }
    throw rsErrorToToolError(r, path);
  }
}

/**
 * Normalise an RS error response into a ToolError (typed; passes RS fields through).
 * @param {{ status: number, json: any, text?: string, requestId?: string | null }} r
 * @param {string} path
 */
export function rsErrorToToolError(r, path) {
  const body = r.json;
  /** @type {Record<string, any>} */
  let e;
  if (body && typeof body.error === 'object' && body.error !== null) {
    e = { ...body.error };
  } else if (body && typeof body.error === 'string') {
    e = {
      type: body.error,
      code: body.error === 'Not Found' ? 'not_found' : body.error,
      message: body.error_description ?? body.message ?? body.error,
    };
  } else if (body && typeof body === 'object') {
    e = { type: 'rs_error', code: `http_${r.status}`, message: body.message ?? JSON.stringify(body).slice(0, 300) };
  } else {
    e = {
      type: 'rs_error',
      code: `http_${r.status}`,
      message: (r.text || '').slice(0, 300) || `The resource server answered HTTP ${r.status}.`,
    };
  }
  if (e.code === 'context.stream_not_allowed') e.message = `The requested stream is not granted to this client token (${e.message}).`;
  if (e.code === 'context.instance_mismatch') e.message = `The requested connection_id is not granted for this stream (${e.message}).`;
  return new ToolError({
    code: String(e.code ?? `http_${r.status}`),
    type: e.type ? String(e.type) : undefined,
    message: String(e.message ?? `HTTP ${r.status}`),
    param: e.param ?? undefined,
    retry_with: e.retry_with ?? undefined,
    available_connections: Array.isArray(e.available_connections) ? e.available_connections : undefined,
    status: r.status,
    rs_path: path,
    request_id: r.requestId ?? e.request_id ?? undefined,
    extra: pickExtra(e),
  });
}

const KNOWN = new Set([
  'type',
  'code',
  'message',
  'param',
  'retry_with',
  'available_connections',
  'request_id',
  'resource_metadata',
  'next_step',
]);

function pickExtra(e) {
  const out = {};
  for (const [k, v] of Object.entries(e)) if (!KNOWN.has(k)) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}
